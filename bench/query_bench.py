#!/usr/bin/env python3
"""query_bench.py — time every built-in named query on a database.

Each query is run through the profan binary (process start, opening the
database and printing the rows included: what a user waits for) against
each of the given runs, best of --repeat runs per (query, run); a query's
time is its slowest run.  The diff-* queries get --param baseline=BASELINE.
Prints one table: query, best ms, rows, the run that took longest.

usage: python3 bench/query_bench.py --db DB [--profan build/profan]
                                    [--runs 1,2,...] [--baseline RUN]
                                    [--repeat N] [--only NAME,...]
                                    [--timeout S]

--runs defaults to every run of the database, --baseline to the second
run (the run itself when there is one).  A query still running after
--timeout seconds (default 120) is stopped and reported as a timeout (a
query of profan's that never answers on some trace shape is a bug: the
memory-timeline query took over 13 minutes on a trace with 810,000
[memory] events until 2026-11-28).  As a module: query_times(profan, db, runs, baseline, repeat) returns
[(query, seconds, rows, run)], slowest first.
"""
import argparse
import csv
import io
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def builtin_queries(profan):
    """Names of the built-in named queries (user query dirs left out)."""
    env = dict(os.environ)
    env.pop("PROFAN_QUERIES", None)
    out = subprocess.run([profan, "queries"], capture_output=True, text=True,
                         env=env, check=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def run_ids(profan, db):
    """Every run id of the database, oldest first."""
    out = subprocess.run([profan, "--db", db, "--format", "csv", "sql",
                          "SELECT id FROM run ORDER BY id"],
                         capture_output=True, text=True, check=True).stdout
    return [int(x) for x in out.split() if x.isdigit()]


def time_query(profan, db, name, run, baseline, repeat, timeout=120):
    """Best wall seconds of `profan query NAME --run RUN` and its row count
    (None when the query failed; inf seconds when it ran past timeout)."""
    cmd = [profan, "--db", db, "--format", "csv", "query", name, "--run", str(run)]
    if name.startswith("diff-") and baseline is not None:
        cmd += ["--param", "baseline=%d" % baseline]
    best, rows = None, None
    env = dict(os.environ)
    env.pop("PROFAN_QUERIES", None)
    for _ in range(repeat):
        t0 = time.perf_counter()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, env=env,
                               timeout=timeout)
        except subprocess.TimeoutExpired:
            return float("inf"), None
        dt = time.perf_counter() - t0
        if p.returncode != 0:
            sys.stderr.write("query %s --run %s failed: %s" % (name, run, p.stderr))
            return None, None
        best = dt if best is None else min(best, dt)
        rows = max(len(list(csv.reader(io.StringIO(p.stdout)))) - 1, 0)  # header
    return best, rows


def query_times(profan, db, runs=None, baseline=None, repeat=3, only=None,
                timeout=120):
    """[(query, best seconds over its slowest run, rows, run)], slowest first."""
    if runs is None:
        runs = run_ids(profan, db)
    if baseline is None and runs:
        baseline = runs[1] if len(runs) > 1 else runs[0]
    res = []
    for name in builtin_queries(profan):
        if only and name not in only:
            continue
        worst = (None, None, None)
        for run in runs:
            secs, rows = time_query(profan, db, name, run, baseline, repeat,
                                    timeout)
            if secs is not None and (worst[0] is None or secs > worst[0]):
                worst = (secs, rows, run)
        res.append((name,) + worst)
    res.sort(key=lambda r: -(r[1] or 0))
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", required=True)
    ap.add_argument("--profan", default=os.path.join(ROOT, "build", "profan"))
    ap.add_argument("--runs", help="comma-separated run ids (default: all)")
    ap.add_argument("--baseline", type=int, help="baseline run of diff-* (default: 2nd run)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", help="comma-separated query names")
    ap.add_argument("--timeout", type=float, default=120,
                    help="seconds before a query is stopped (default 120)")
    a = ap.parse_args()
    runs = [int(x) for x in a.runs.split(",")] if a.runs else None
    only = set(a.only.split(",")) if a.only else None
    res = query_times(a.profan, a.db, runs, a.baseline, a.repeat, only,
                      a.timeout)
    print("| query | best ms | rows | run |")
    print("|---|---:|---:|---:|")
    for name, secs, rows, run in res:
        print("| %s | %s | %s | %s |" % (
            name, "failed" if secs is None else "timeout (> %g s)" % a.timeout
            if secs == float("inf") else "%.0f" % (secs * 1000),
            rows if rows is not None else "", run if run is not None else ""))
    slow = [r for r in res if r[1] is not None and r[1] > 0.1]
    print("\n%d of %d queries over 100 ms" % (len(slow), len(res)))


if __name__ == "__main__":
    main()
