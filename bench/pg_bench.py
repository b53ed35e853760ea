#!/usr/bin/env python3
"""pg_bench.py — a team's history on PostgreSQL (issue 36): push latency
and check / trend against the server, each beside the same command over
the local history file (the baseline of the ratio, same run, same
machine).

usage: python3 bench/pg_bench.py PROFAN [--runs N] [--repeat R]
                                 [--run-dir DIR] [--work DIR] [--old P]

Starts a throwaway server (tests/e2e/pgserver.py), makes an N-run
history with make_history.py's clones of RUN_DIR (default: the 8-rank
dlrm run of ../shared/fixtures), pushes it in one `profan push`, then
times (median of R):
  - push of one 8-rank run (the last R runs of the history, one push
    each, into the server holding the N-R before them),
  - check --baseline late --run latest, trend step_time_median_ms, over
    the local history (--db) and over the server (--history URL);
the answers over both must be equal (exit 1 otherwise).

Each push is timed three ways: its wall time, the CPU seconds of the
profan process (getrusage of the children) and those of the server
process that served it (the postmaster's reaped children's CPU time,
/proc/PID/stat, read once the backend has exited).  On a machine shared
with other jobs the wall time measures the load as much as the push;
the two CPU times add up to what the push costs.  --old P: the same
pushes by another profan binary into a second server database, taking
turns with PROFAN (the baseline of the ratio, same run).
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
sys.path.insert(0, HERE)
import make_history  # noqa: E402
import pgserver  # noqa: E402


def timed(cmd):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    return time.perf_counter() - t0, p


def local_vs_server(profan, hist, url, cmd, repeat):
    """cmd run repeat times over the local history (--db hist) and over
    the server (--history url), in turns: (local times, server times, the
    last server run, [(local, server) runs whose exit or output differ])."""
    loc, srvt, diff = [], [], []
    p2 = None
    for _ in range(repeat):
        s1, p1 = timed([profan, "--db", hist] + cmd)
        s2, p2 = timed([profan, "--db", hist] + cmd + ["--history", url])
        loc.append(s1)
        srvt.append(s2)
        if (p1.returncode, p1.stdout) != (p2.returncode, p2.stdout):
            diff.append((p1, p2))
    return loc, srvt, p2, diff


def server_cpu(srv):
    """CPU seconds of the server's exited processes (postmaster's
    cutime + cstime)."""
    with open(os.path.join(srv.data, "postmaster.pid")) as f:
        pid = int(f.readline())
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed_push(srv, cmd):
    """Wall, client CPU and server CPU seconds of one push."""
    c0, s0 = child_cpu(), server_cpu(srv)
    secs, p = timed(cmd)
    if p.returncode or "pushed 1 run" not in p.stdout:
        sys.exit("push failed: %s%s" % (p.stdout, p.stderr))
    c1 = child_cpu()
    time.sleep(0.3)                  # the backend exits, postmaster reaps
    return secs, c1 - c0, server_cpu(srv) - s0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("profan")
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--run-dir", default=os.path.join(
        ROOT, "..", "shared", "fixtures", "runs", "dlrm-8rank"))
    ap.add_argument("--work", default=os.path.join(HERE, "out", "pg"))
    ap.add_argument("--old", help="another profan binary: the baseline")
    a = ap.parse_args()
    profan = os.path.abspath(a.profan)
    os.makedirs(a.work, exist_ok=True)
    tmp = tempfile.mkdtemp(dir=a.work)
    hist = os.path.join(tmp, "history.db")
    make_history.archive(profan, a.run_dir, hist, tmp)
    make_history.clone_runs(hist, a.runs)
    for name, run in (("main", "r0"), ("late", "r%d" % (a.runs - 10))):
        subprocess.run([profan, "--db", hist, "baseline", "set", name, run],
                       check=True, capture_output=True)
    srv = pgserver.PgServer().start()
    try:
        bins = [("new", profan)]
        if a.old:
            bins.append(("old", os.path.abspath(a.old)))
        last = a.runs - a.repeat
        ids = [str(i) for i in range(1, last + 1)]
        urls = {}
        for tag, binary in bins:
            srv.psql("CREATE DATABASE bench_%s" % tag)
            urls[tag] = srv.url("bench_" + tag)
            secs, p = timed([binary, "--db", hist, "push", "--quiet", "--to",
                             urls[tag]] + ids)
            if p.returncode:
                sys.exit("push of the history failed: " + p.stderr)
            print("%s: push of %d runs (one push): %.1f s"
                  % (tag, last, secs))
        url = urls["new"]
        lat = {tag: [] for tag, _ in bins}
        for i in range(last + 1, a.runs + 1):
            for tag, binary in bins:
                lat[tag].append(timed_push(srv, [binary, "--db", hist,
                                                 "push", str(i), "--to",
                                                 urls[tag]]))
        for tag, _ in bins:
            w, c, sv = ([x[k] for x in lat[tag]] for k in range(3))
            print("%s: push of one run: wall median %.3f s (%s); client CPU"
                  " %.3f s, server CPU %.3f s, sum %.3f s (medians)"
                  % (tag, statistics.median(w),
                     ", ".join("%.3f" % x for x in w), statistics.median(c),
                     statistics.median(sv),
                     statistics.median([x + y for x, y in zip(c, sv)])))
        bad = 0
        for cmd in (["check", "--baseline", "late", "--run", "latest"],
                    ["trend", "step_time_median_ms"]):
            loc, srvt, _, diff = local_vs_server(profan, hist, url, cmd,
                                                 a.repeat)
            bad += len(diff)
            ml, ms = statistics.median(loc), statistics.median(srvt)
            print("%-45s local %.3f s, server %.3f s (x%.1f)"
                  % (" ".join(cmd), ml, ms, ms / ml))
        if bad:
            sys.exit("%d answers differ between local and server" % bad)
    finally:
        srv.cleanup()


if __name__ == "__main__":
    main()
