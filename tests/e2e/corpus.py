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
