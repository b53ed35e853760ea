"""corpus.py — the trace corpus of the invariant test (test_corpus.py):
every trace in ../shared/fixtures and fixtures/, one run each (a run
directory as one run), and the invariants every analysis must hold on
each of them, checked from what profan prints and from its database rows
with Python (no profan formula restated: an invariant is a property any
right answer has).

Invariants (issue 32):
  - every named query runs (exit 0) on every run;
  - no percentage or efficiency outside [0, 100] (columns with the word
    pct: pct, *_pct, pct_of_*, pct_bar, the shares and efficiencies; a
    ratio to a median or a change is not a share: RATIO_COLUMNS), no
    *efficiency fraction outside [0, 1];
  - no negative duration (columns *_ms, *_us, *_ns but the deltas of the
    diff queries);
  - union <= span (temporal breakdown: compute + non-compute + idle =
    span, each within it; gpu-utilization busy <= wall);
  - per stream, idle + busy = span (the union of its ops plus the idle
    intervals of hta_idle_interval);
  - every GPU op whose correlation id has a runtime call in its file is
    linked to it;
  - a per-step quantity is at most the step time (PER_STEP_METRICS,
    PER_STEP_COLUMNS): wall-clock time inside a step (exposed
    communication, the critical path) at most the steps' time; GPU time
    summed over streams at most the step time a GPU-time share is taken
    of (view step_share: the longest of the mean CPU step, the GPU span
    and the GPU time per step); every step_comm row within its step;
  - export-trace of the whole run, ingested again, gives the same kernel
    count, kernel time, linked kernels and ranks.

Speed (CI runs it on 2 cores): each fixture is ingested once, into one
of a few shard databases built side by side (Corpus.build); the named
queries go through profan, every (run, query) its own process, JOBS at a
time; the row invariants read the databases with Python's sqlite3, read
only, in this process.
"""
import csv
import glob
import io
import os
import sqlite3
from concurrent.futures import ThreadPoolExecutor

from common import ROOT, SHARED, run

# processes at a time (PROFAN_CORPUS_JOBS, else one per CPU)
JOBS = max(1, int(os.environ.get("PROFAN_CORPUS_JOBS",
                                 str(os.cpu_count() or 2))))


# A trace or a run directory of the corpus, relative names for messages.
def corpus():
    out = []
    for p in sorted(glob.glob(os.path.join(SHARED, "traces", "*"))):
        out.append(p)
    for p in sorted(glob.glob(os.path.join(SHARED, "runs", "*"))):
        out.append(p)
    fx = os.path.join(ROOT, "fixtures")
    for p in sorted(glob.glob(os.path.join(fx, "*", "*.json*"))):
        if os.path.basename(os.path.dirname(p)) != "sample-run":
            out.append(p)
    out.append(os.path.join(fx, "sample-run"))
    return out


def short_name(p):
    """The name a failure message gives a corpus entry."""
    return (os.path.relpath(p, ROOT) if p.startswith(ROOT)
            else os.path.relpath(p, os.path.dirname(SHARED)))


def size_of(p):
    if os.path.isdir(p):
        return sum(os.path.getsize(os.path.join(p, f)) for f in os.listdir(p))
    return os.path.getsize(p)


def parallel(fn, items):
    """fn over items, JOBS at a time (threads: the work is in the
    subprocesses and SQLite), results in order."""
    with ThreadPoolExecutor(max_workers=JOBS) as ex:
        return list(ex.map(fn, items))


class Corpus:
    """The corpus ingested once: runs {name: (db, run_id)}."""

    def __init__(self, tmpdir):
        self.tmpdir = tmpdir
        self.runs = {}

    def build(self):
        """Ingest every entry once; shards of about equal bytes, one per
        job, each shard's entries one after another.  Returns the ingest
        failures ("name: message")."""
        paths = sorted(corpus(), key=size_of, reverse=True)
        shards = [[] for _ in range(min(JOBS, len(paths)))]
        load = [0] * len(shards)
        for p in paths:
            i = load.index(min(load))
            shards[i].append(p)
            load[i] += size_of(p)

        def ingest(k):
            db = os.path.join(self.tmpdir, "corpus%d.db" % k)
            out, bad = [], []
            for p in shards[k]:
                r = run("ingest", p, db=db)
                if r.rc != 0:
                    bad.append("%s: %s" % (short_name(p), r.err.strip()))
                    continue
                rid = read_rows(db, "SELECT max(id) AS i FROM run")[0]["i"]
                out.append((short_name(p), db, rid))
            return out, bad
        bad = []
        for out, b in parallel(ingest, range(len(shards))):
            bad += b
            for name, db, rid in out:
                self.runs[name] = (db, rid)
        return bad

    def items(self):
        """(name, db, run_id) in name order."""
        return [(n,) + self.runs[n] for n in sorted(self.runs)]


# *_pct columns that are ratios, not shares of a whole (may pass 100).
RATIO_COLUMNS = {
    ("steps", "vs_median_pct"),            # step time / the median step
    ("rank-skew", "step_over_mean_pct"),   # rank vs the mean of ranks, +/-
    ("rank-skew", "busy_over_mean_pct"),
    ("trend", "change_pct"),               # change from the first run
}
# queries whose duration columns are differences (may be negative)
DIFF_QUERIES = ("diff-",)
# time columns that are signed offsets, not durations
OFFSET_COLUMNS = {
    ("rank-skew", "clock_ms"),             # the rank's clock offset, +/-
}


def queries():
    r = run("queries")
    assert r.rc == 0, r.err
    names = [ln.split()[0] for ln in r.out.splitlines() if ln.strip()]
    return names


def takes_limit(name):
    """Whether named query `name` has a limit parameter (its file in
    queries/ binds :limit): one process a (run, query), not a refused
    try first."""
    if name not in _LIMIT:
        p = os.path.join(ROOT, "queries", name + ".sql")
        _LIMIT[name] = os.path.exists(p) and ":limit" in open(p).read()
    return _LIMIT[name]


_LIMIT = {}


def run_query(db, name, run_id):
    """Run query name on run_id with every row (limit raised where the
    query takes one; diff queries against the run itself)."""
    args = ["--format", "csv", "query", name, "--run", str(run_id)]
    if name.startswith("diff-"):
        args += ["--param", "baseline=%d" % run_id]
    if takes_limit(name):
        args += ["--param", "limit=1000000"]
    r = run(*args, db=db)
    return r, (list(csv.DictReader(io.StringIO(r.out))) if r.rc == 0 else [])


def number(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def is_pct(col):
    """A percentage: pct one of the column's words (pct, *_pct, pct_of_*,
    the bars' pct_bar)."""
    return "pct" in col.split("_")


def is_fraction(col):
    """An efficiency as a fraction of its ideal (comm-overlap's
    overlap_efficiency: 1 = the shorter side fully hidden)."""
    return col.endswith("efficiency")


def is_duration(col):
    return col.endswith(("_ms", "_us", "_ns")) and "delta" not in col \
        and "diff" not in col and "change" not in col


def check_rows(name, rows):
    """Violations of the value invariants in one query's rows."""
    bad = []
    for r in rows:
        for col, v in r.items():
            x = number(v)
            if x is None:
                continue
            if is_pct(col) and (name, col) not in RATIO_COLUMNS \
                    and not (0.0 <= x <= 100.0):
                bad.append("%s.%s = %s" % (name, col, v))
            if is_fraction(col) and not (0.0 <= x <= 1.0):
                bad.append("%s.%s = %s" % (name, col, v))
            if is_duration(col) and not name.startswith(DIFF_QUERIES) \
                    and (name, col) not in OFFSET_COLUMNS and x < 0:
                bad.append("%s.%s = %s (negative)" % (name, col, v))
    return bad


def read_rows(db, text, args=()):
    """Rows of a read-only query on db, as dicts (Python's sqlite3: the
    row invariants read the stored rows, profan computed them)."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        con.row_factory = sqlite3.Row
        return [dict(r) for r in con.execute(text, args)]
    finally:
        con.close()


def stream_spans(db, run_id):
    """Per (rank, device, stream): span, union of its ops, summed idle
    intervals (hta_idle_interval), from the rows."""
    ops = read_rows(db, "SELECT rank, device, stream, ts, ts + dur AS e FROM"
                    " hta_gpu_op WHERE run_id = ? ORDER BY rank, device,"
                    " stream, ts", (run_id,))
    idle = {}
    for r in read_rows(db, "SELECT rank, device, stream, sum(gap_ns) AS g"
                       " FROM hta_idle_interval WHERE run_id = ?"
                       " GROUP BY 1, 2, 3", (run_id,)):
        idle[(r["rank"], r["device"], r["stream"])] = r["g"]
    out = {}
    for r in ops:
        k = (r["rank"], r["device"], r["stream"])
        a, e = r["ts"], r["e"]
        s = out.setdefault(k, {"lo": a, "hi": e, "busy": 0, "cur": None})
        s["lo"], s["hi"] = min(s["lo"], a), max(s["hi"], e)
        c = s["cur"]
        if c is None or a > c[1]:
            if c is not None:
                s["busy"] += c[1] - c[0]
            s["cur"] = [a, e]
        else:
            c[1] = max(c[1], e)
    for k, s in out.items():
        if s["cur"] is not None:
            s["busy"] += s["cur"][1] - s["cur"][0]
        s["idle"] = idle.get(k, 0)
    return out


def unlinked_gpu_ops(db, run_id):
    """GPU ops whose correlation id has a runtime call in their file but
    that are not linked to one (the calls' ids a set here: no index on
    runtime_call's correlation since schema 031)."""
    gpu = read_rows(db, """
        SELECT file_id, correlation FROM kernel WHERE run_id = ?1
          AND runtime_id IS NULL AND correlation IS NOT NULL
        UNION ALL SELECT file_id, correlation FROM gpu_mem_op
        WHERE run_id = ?1 AND runtime_id IS NULL
          AND correlation IS NOT NULL""", (run_id,))
    if not gpu:
        return 0
    calls = {(r["file_id"], r["correlation"]) for r in read_rows(
        db, "SELECT file_id, correlation FROM runtime_call WHERE run_id = ?"
        " AND correlation IS NOT NULL", (run_id,))}
    return sum((g["file_id"], g["correlation"]) in calls for g in gpu)


def kernel_summary(db, run_id):
    """{rank: (kernels, kernel ns, linked kernels)}."""
    return {r["rank"]: (r["n"], r["ns"], r["linked"])
            for r in read_rows(db, "SELECT rank, count(*) AS n, sum(dur) AS"
                               " ns, count(runtime_id) AS linked FROM kernel"
                               " WHERE run_id = ? GROUP BY rank", (run_id,))}


# ---------------------------------------------- per step <= step time
# Every run_metric ending in _ms is classified here: per step with the
# step time that bounds it, or not per step.  A new one fails the test
# until it is.  'steps': the mean of the steady steps' time (the steps
# the per-step mean is taken over, step_time_mean_ms); 'gpu': the step
# time of GPU time summed over streams (step_share.step_ns).
PER_STEP_METRICS = {
    "exposed_comm_ms": "steps",
    "gpu_ms": "gpu",
    "top_kernel_ms": "gpu",
    "hta_queue_blocked_ms": "steps",
}
NOT_PER_STEP_METRICS = {
    "step_time_median_ms", "step_time_p90_ms", "step_time_mean_ms",
    "gemm_recoverable_ms", "gemm_time_ms", "attention_recoverable_ms",
    "attention_time_ms", "kernels_without_launch_ms", "exposed_memcpy_ms",
}
# (query, column, bound, summed): the per-step ms columns of the named
# queries (their catalogue says "per step"); summed: the column's sum over
# the rows of a rank (or of the run) is bounded too, not only each row.
# 'rank': the rank's mean CPU step (step.dur: what critical-path-top
# divides by); 'gpu': step_share.step_ns.
PER_STEP_COLUMNS = {
    ("critical-path-top", "per_step_ms"): ("rank", True),
    ("top-kernels", "per_step_ms"): ("gpu", True),
    ("diff-kernels", "a_ms"): ("gpu", True),
    ("diff-kernels", "b_ms"): ("gpu", True),
    ("diff-categories", "a_ms"): ("gpu", False),
    ("diff-categories", "b_ms"): ("gpu", False),
    ("diff-ops", "a_gpu_ms"): ("gpu", False),      # ops nest: no sum
    ("diff-ops", "b_gpu_ms"): ("gpu", False),
    ("report-summary", "exposed comm ms per step"): ("steps", False),
}
# per-step columns that no step time bounds: self CPU time summed over
# the threads (a data loader's thread runs beside the training loop)
UNBOUNDED_COLUMNS = {
    ("diff-ops", "a_self_ms"), ("diff-ops", "b_self_ms"),
}


def per_step_catalogue():
    """(query, column) of every column of queries/*.sql whose catalogue
    line says it is per step and ends in _ms."""
    out = set()
    for f in sorted(glob.glob(os.path.join(ROOT, "queries", "*.sql"))):
        name = os.path.basename(f)[:-4]
        for ln in open(f, encoding="utf-8"):
            if ln.startswith("-- column:"):
                col, _, desc = ln[10:].strip().partition(" ")
                if col.endswith("_ms") and ("per step" in desc
                                            or "per_step" in col):
                    out.add((name, col))
    return out


def step_bounds(db, rid):
    """{'steps': ms, 'gpu': ms, ('rank', r): ms} of run rid, from the
    rows: the steady steps' mean bounded time (step.bound_dur, else dur;
    steadiness from view step_steady), step_share's step time, and each
    rank's mean CPU step."""
    out = {}
    r = read_rows(db, "SELECT avg(coalesce(s.bound_dur, s.dur)) AS m FROM"
                  " step s JOIN step_steady t ON t.run_id = s.run_id AND"
                  " t.rank = s.rank AND t.step = s.step WHERE s.run_id = ?"
                  " AND t.steady", (rid,))
    out["steps"] = None if r[0]["m"] is None else r[0]["m"] / 1e6
    r = read_rows(db, "SELECT step_ns FROM step_share WHERE run_id = ?",
                  (rid,))
    out["gpu"] = r[0]["step_ns"] / 1e6 if r else None
    for x in read_rows(db, "SELECT rank, avg(dur) AS m FROM step WHERE"
                       " run_id = ? GROUP BY rank", (rid,)):
        out[("rank", x["rank"])] = x["m"] / 1e6
    return out


def per_step_violations(db, rid):
    """A per-step quantity of run rid above its step time (run_metric,
    step_comm rows, the named queries' per-step columns), as messages;
    rounding: 0.0015 ms a row."""
    b = step_bounds(db, rid)
    bad = []

    def over(what, v, bound, n=1):
        if v is None:
            return
        if bound is None:
            bad.append("%s = %.3f ms per step with no step time" % (what, v))
        elif v > bound + 0.0015 * n:
            bad.append("%s = %.3f ms > step time %.3f ms" % (what, v, bound))
    for m in read_rows(db, "SELECT metric, value FROM run_metric WHERE"
                       " run_id = ? AND metric GLOB '*_ms'", (rid,)):
        k = m["metric"]
        if k in PER_STEP_METRICS:
            over("run_metric " + k, m["value"], b[PER_STEP_METRICS[k]])
        elif k not in NOT_PER_STEP_METRICS:
            bad.append("run_metric %s: not classified (corpus.py"
                       " PER_STEP_METRICS)" % k)
    # the per-step figure is the mean of its steps: exposed_comm_ms over
    # the steady steps' step_comm rows (a trace-wide total over the number
    # of steps counted communication in no step: 18.54 instead of
    # 11.76 ms on tracelens-mi300)
    em = read_rows(db, "SELECT value FROM run_metric WHERE run_id = ?"
                   " AND metric = 'exposed_comm_ms'", (rid,))
    if em:
        st = read_rows(db, "SELECT avg(c.exposed_ns) / 1e6 AS m FROM"
                       " step_comm c JOIN step_steady t ON t.run_id ="
                       " c.run_id AND t.rank = c.rank AND t.step = c.step"
                       " WHERE c.run_id = ? AND t.steady", (rid,))
        if st[0]["m"] is None or abs(st[0]["m"] - em[0]["value"]) > 1e-6:
            bad.append("exposed_comm_ms %.3f is not the mean of the steady"
                       " steps' step_comm rows (%s)"
                       % (em[0]["value"], st[0]["m"]))
    for r in read_rows(db, "SELECT c.rank, c.step, c.comm_ns, c.exposed_ns,"
                       " coalesce(s.bound_dur, s.dur) AS dur FROM step_comm c"
                       " JOIN step s USING (run_id, rank, step)"
                       " WHERE c.run_id = ?", (rid,)):
        if not 0 <= r["exposed_ns"] <= r["comm_ns"] <= r["dur"]:
            bad.append("step_comm %s" % r)
    for (q, col), (kind, summed) in sorted(PER_STEP_COLUMNS.items()):
        res, rows = run_query(db, q, rid)
        if res.rc != 0:
            continue                # the every-query test reports it
        if q == "report-summary":
            rows = [{col: x["value"]} for x in rows if x["item"] == col]
        sums = {}
        for x in rows:
            v = number(x.get(col))
            if v is None:
                continue
            key = ("rank", int(x["rank"])) if kind == "rank" else kind
            over("%s.%s" % (q, col), v, b.get(key))
            s = sums.setdefault(key, [0.0, 0])
            s[0] += v
            s[1] += 1
        if summed:
            for key, (v, n) in sums.items():
                over("sum of %s.%s%s" % (q, col, " rank %s" % key[1]
                                         if kind == "rank" else ""),
                     v, b.get(key), n)
    return bad
