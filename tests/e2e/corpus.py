"""corpus.py — the trace corpus of the invariant test (test_corpus.py):
every trace in ../shared/fixtures and fixtures/, one run each (a run
directory as one run), and the invariants every analysis must hold on
each of them, checked from what profan prints and from its database rows
with Python (no profan formula restated: an invariant is a property any
right answer has).

Invariants (issue 32):
  - every named query runs (exit 0) on every run;
  - no percentage or efficiency outside [0, 100] (columns named *_pct or
    pct, the shares and efficiencies; a ratio to a median or a change is
    not a share: RATIO_COLUMNS);
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
"""
import csv
import glob
import io
import os

from common import ROOT, SHARED, PROFAN, run

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


# *_pct columns that are ratios, not shares of a whole (may pass 100).
RATIO_COLUMNS = {
    ("steps", "vs_median_pct"),            # step time / the median step
    ("rank-skew", "step_over_mean_pct"),   # rank vs the mean of ranks, +/-
    ("rank-skew", "busy_over_mean_pct"),
    ("trend", "change_pct"),               # change from the first run
}
# queries whose duration columns are differences (may be negative)
DIFF_QUERIES = ("diff-",)
# fitted parameters, not measured durations: alpha-beta's alpha_us is a
# least-squares intercept with its standard error (alpha_se_us) beside
# it; negative when the sizes do not reach the latency regime (v100
# fixture: -119.6 us).  A constrained fit belongs to derive_comm.c.
FIT_COLUMNS = {("alpha-beta", "alpha_us")}


def queries():
    r = run("queries")
    assert r.rc == 0, r.err
    names = [ln.split()[0] for ln in r.out.splitlines() if ln.strip()]
    return names


def run_query(db, name, run_id):
    """Run query name on run_id with every row (limit raised where the
    query takes one; diff queries against the run itself)."""
    args = ["--format", "csv", "query", name, "--run", str(run_id)]
    if name.startswith("diff-"):
        args += ["--param", "baseline=%d" % run_id]
    r = run(*args, "--param", "limit=1000000", db=db)
    if r.rc == 2 and "limit" in r.err:
        r = run(*args, db=db)
    return r, (list(csv.DictReader(io.StringIO(r.out))) if r.rc == 0 else [])


def number(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def is_pct(col):
    return col == "pct" or col.endswith("_pct")


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
            if is_duration(col) and not name.startswith(DIFF_QUERIES) \
                    and (name, col) not in FIT_COLUMNS and x < 0:
                bad.append("%s.%s = %s (negative)" % (name, col, v))
    return bad


def sql_rows(db, text):
    r = run("--format", "csv", "sql", text, db=db)
    assert r.rc == 0, r.err
    return list(csv.DictReader(io.StringIO(r.out)))


def stream_spans(db, run_id):
    """Per (rank, device, stream): span, union of its ops, summed idle
    intervals (hta_idle_interval), from the rows."""
    ops = sql_rows(db, "SELECT rank, device, stream, ts, ts + dur AS e FROM"
                   " hta_gpu_op WHERE run_id = %d ORDER BY rank, device,"
                   " stream, ts" % run_id)
    idle = {}
    for r in sql_rows(db, "SELECT rank, device, stream, sum(gap_ns) AS g FROM"
                      " hta_idle_interval WHERE run_id = %d GROUP BY 1, 2, 3"
                      % run_id):
        idle[(r["rank"], r["device"], r["stream"])] = int(r["g"])
    out = {}
    for r in ops:
        k = (r["rank"], r["device"], r["stream"])
        a, e = int(r["ts"]), int(r["e"])
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
    that are not linked to one."""
    rows = sql_rows(db, """
      SELECT count(*) AS n FROM (
        SELECT file_id, rank, correlation, runtime_id FROM kernel
        WHERE run_id = {r}
        UNION ALL SELECT file_id, rank, correlation, runtime_id
        FROM gpu_mem_op WHERE run_id = {r}) g
      WHERE g.runtime_id IS NULL AND g.correlation IS NOT NULL
        AND EXISTS (SELECT 1 FROM runtime_call c WHERE c.run_id = {r}
                    AND c.file_id = g.file_id
                    AND c.correlation = g.correlation)""".format(r=run_id))
    return int(rows[0]["n"])


def kernel_summary(db, run_id):
    """{rank: (kernels, kernel ns, linked kernels)}."""
    return {r["rank"]: (int(r["n"]), int(r["ns"]), int(r["linked"]))
            for r in sql_rows(db, "SELECT rank, count(*) AS n, sum(dur) AS ns,"
                              " count(runtime_id) AS linked FROM kernel WHERE"
                              " run_id = %d GROUP BY rank" % run_id)}
