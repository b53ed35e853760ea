#!/usr/bin/env python3
"""query_shapes.py — the query benchmark of issue 35: every built-in named
query with its defaults (all ranks, no --limit tricks), `report` and
`report --html`, on the 256-rank run of make_ranks.py and on every trace
shape of bench.py scaled x10; one row per input with its slowest query.

Targets (issue 35): every named query <= 1 s, `report` <= 1 s, `report
--html` <= 2 s at 256 ranks.  The machine is shared, so each input also
times a baseline in the same run, `sqlite3 DB 'SELECT count(*) FROM
kernel'` (process start and one pass over the run's largest event table),
and prints the slowest query's ratio to it.  Each time is the run with
the least CPU of --repeat runs, printed as CPU s (wall s): on a shared
machine the CPU time is what the command cost itself.

usage: python3 bench/query_shapes.py [--profan build/profan] [--work DIR]
                                     [--ranks 256] [--shape-scale 10]
                                     [--input NAME ...] [--repeat N]
                                     [--timeout S] [--no-ranks] [--reuse]

Inputs are cached in --work (default bench/out/); the shapes go smallest
first (the largest last, so that a run cut short has measured the most).
Each database is ingested once per run (its ingest seconds are printed
too).  --input limits the run to the inputs named (the rank run is
"ranks256"; shapes by bench.py's names, e.g. hta-mtia-rank0).  Prints
progress on stderr and the table on stdout (markdown).
"""
import argparse
import os
import resource
import subprocess
import sys
import time

import bench
import make_ranks
import query_bench

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def child_cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def timed(cmd, timeout):
    """(wall seconds, CPU seconds: user + system) of cmd, run alone (the
    CPU is the rusage of children waited for meanwhile); (inf, inf) past
    timeout; None when it failed.  On a shared machine the CPU time is
    what the command itself cost; the wall time adds the others' load."""
    c0, t0 = child_cpu(), time.perf_counter()
    try:
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return float("inf"), float("inf")
    wall, cpu = time.perf_counter() - t0, child_cpu() - c0
    if p.returncode != 0:
        sys.stderr.write("failed: %s\n%s" % (" ".join(cmd),
                                             p.stderr.decode(errors="replace")))
        return None
    return wall, cpu


def best(n, cmd, timeout):
    """(wall, CPU) of the run of cmd with the least CPU of n runs (None
    when one failed)."""
    out = None
    for _ in range(n):
        t = timed(cmd, timeout)
        if t is None:
            return None
        if out is None or t[1] < out[1]:
            out = t
        if t[0] == float("inf"):
            break
    return out


def ranks_input(work, n):
    """The n-rank run's directory, made once."""
    d = os.path.join(work, "ranks%d" % n)
    last = os.path.join(d, "rank%04d.pt.trace.json" % (n - 1))
    if not os.path.exists(last):
        sys.stderr.write("building %s ...\n" % d)
        make_ranks.make(d, n)
    return d


def input_bytes(path):
    if os.path.isdir(path):
        return sum(os.path.getsize(os.path.join(path, f))
                   for f in os.listdir(path))
    return os.path.getsize(path)


def measure(a, name, path):
    """One input: ingest, baseline, every query, report, report --html.
    Each query's (wall, CPU) also goes to --work/q-NAME.times.tsv."""
    db = os.path.join(a.work, "q-%s.db" % name)
    if a.reuse and os.path.exists(db):
        ingest = (float("nan"), float("nan"))
    else:
        for s in ("", "-wal", "-shm"):
            if os.path.exists(db + s):
                os.remove(db + s)
        sys.stderr.write("%s: ingest ...\n" % name)
        ingest = timed([a.profan, "--db", db, "ingest", path], 3600)
        if ingest is None:
            return None
    base = best(a.repeat, ["sqlite3", db, "SELECT count(*) FROM kernel"],
                a.timeout)
    sys.stderr.write("%s: queries ...\n" % name)
    res, failed = [], []
    for q in query_bench.builtin_queries(a.profan):
        cmd = [a.profan, "--db", db, "--format", "csv", "query", q]
        if q.startswith("diff-"):
            cmd += ["--param", "baseline=1"]
        t = best(a.repeat, cmd, a.timeout)
        if t is None:
            failed.append(q)
        else:
            res.append((q,) + t)
    res.sort(key=lambda r: -r[2])                   # by CPU
    with open(os.path.join(a.work, "q-%s.times.tsv" % name), "w") as f:
        for q, wall, cpu in res:
            f.write("%s\t%.3f\t%.3f\n" % (q, wall, cpu))
    rep = best(a.repeat, [a.profan, "--db", db, "report"], a.timeout)
    html = best(a.repeat, [a.profan, "--db", db, "report", "--html",
                           os.path.join(a.work, "q-%s.html" % name)],
                a.timeout)
    return dict(name=name, mb=input_bytes(path) / 1e6, ingest=ingest,
                base=base, res=res, failed=failed, report=rep, html=html,
                db_mb=os.path.getsize(db) / 1e6)


def fmt_s(x):
    if x is None:
        return "failed"
    if x == float("inf"):
        return "timeout"
    if x != x:
        return "-"
    return "%.2f" % x


def fmt_t(t):
    """CPU s (wall s)."""
    return "failed" if t is None else "%s (%s)" % (fmt_s(t[1]), fmt_s(t[0]))


def row(r):
    res = r["res"]
    top = res[0] if res else None
    slow = ", ".join("%s %s" % (q, fmt_s(c)) for q, w, c in res
                     if c > 1.0) or "none"
    if r["failed"]:
        slow += " (failed: %s)" % ", ".join(r["failed"])
    ratio = ("%.0f" % (top[1] / r["base"][0])
             if top and r["base"] and r["base"][0] > 0
             and top[1] != float("inf") else "")
    return "| %s | %.0f | %s | %.0f | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        r["name"], r["mb"], fmt_s(r["ingest"][0]), r["db_mb"],
        fmt_t(r["base"]), top[0] if top else "",
        fmt_t(top[1:]) if top else "", ratio,
        "%s %s" % (res[1][0], fmt_t(res[1][1:])) if len(res) > 1 else "",
        fmt_t(r["report"]), fmt_t(r["html"]), slow)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profan", default=os.path.join(ROOT, "build", "profan"))
    ap.add_argument("--work", default=os.path.join(HERE, "out"))
    ap.add_argument("--ranks", type=int, default=256)
    ap.add_argument("--shape-scale", type=int, default=10)
    ap.add_argument("--input", action="append",
                    help="only this input (repeatable)")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--no-ranks", action="store_true")
    ap.add_argument("--reuse", action="store_true",
                    help="query a database left by an earlier run"
                    " (made by the same build) instead of ingesting again")
    a = ap.parse_args()
    a.profan = os.path.abspath(a.profan)
    os.makedirs(a.work, exist_ok=True)
    inputs = []
    if not a.no_ranks and (not a.input or "ranks%d" % a.ranks in a.input):
        inputs.append(("ranks%d" % a.ranks, ranks_input(a.work, a.ranks)))
    shapes = [(n, p) for n, p in bench.shape_inputs(a.work, a.shape_scale)
              if not a.input or n in a.input]
    shapes.sort(key=lambda s: bench.raw_size(s[1]))      # largest last
    for n, p in shapes:                              # scaled when reached
        inputs.append(("%s x%d" % (n, a.shape_scale),
                       lambda n=n, p=p: bench.scaled(p, n, a.shape_scale,
                                                     a.work)))
    print("| input | JSON MB | ingest s | DB MB | baseline CPU s (wall)"
          " | slowest query (CPU) | CPU s (wall) | wall x baseline | next"
          " | report CPU s (wall) | report --html CPU s (wall)"
          " | queries over 1 s CPU |")
    print("|---|---:|---:|---:|---:|---|---:|---:|---|---:|---:|---|")
    sys.stdout.flush()
    for name, path in inputs:
        r = measure(a, name.replace(" ", "-"),
                    path() if callable(path) else path)
        if r is None:
            print("| %s | | ingest failed | | | | | | | | | |" % name)
        else:
            r["name"] = name
            print(row(r))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
