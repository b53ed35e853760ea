"""pg_concurrency.py — many CI jobs at once against one history server
(issue 36): N processes each push P runs while C more run `check`, for
test_history_server.py (16 x 3) and bench/pg_concurrency.py
(the issue's 16 x 50 with 4 checkers).

The runs pushed: clones of the 2-rank sample run in a local
`--summaries-only` history (bench/make_history.py's archive and
clone_runs: each its own name r<i>, content hash and duration factor),
N*P of them; job i pushes its P runs and the first run of job i+1, so
that every job races another for one run (N runs offered twice, each
stored once).  The checks: the replayed family of test_history_server
(base, h0..h5, run3/10/20 beside unrelated runs) pushed before, and
`check --baseline main --run run20` (20 % slower: a regression, exit 1)
and `--run h5` (no slowdown: exit 0) over and over while the pushes
run, each answer compared with the known verdict.
"""
import concurrent.futures
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)),
                                "bench"))
import make_history  # noqa: E402

# (run, the verdict's exit code) of the family's checks
CHECKS = (("run20", 1), ("h5", 0))


def make_clones(profan, work, n):
    """A local history of n clones r0..r(n-1) of the sample run."""
    run_dir = os.path.join(work, "sample")
    make_history.write_run(run_dir, 0)
    hist = os.path.join(work, "clones.db")
    make_history.archive(profan, run_dir, hist, work)
    make_history.clone_runs(hist, n)
    return hist


def run(profan, url, family_db, clones_db, n_proc, per_proc, n_check,
        env=None):
    """Run the pushes and the checks at once; returns a dict: pushes
    (rc, out, err) by job, checks [(run, want, rc, err, seconds)],
    seconds (wall of all pushes), names (the runs each job pushed)."""
    def profan_run(*args, db=None):
        cmd = [profan] + (["--db", db] if db else []) + list(args)
        e = dict(os.environ)
        e.pop("PROFAN_DB", None)
        e.update(env or {})
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True, env=e,
                           stdin=subprocess.DEVNULL, timeout=1800)
        return p.returncode, p.stdout, p.stderr, time.perf_counter() - t0

    names = []
    for i in range(n_proc):
        mine = ["r%d" % (i * per_proc + k) for k in range(per_proc)]
        names.append(mine + ["r%d" % (((i + 1) % n_proc) * per_proc)])

    def checker(k, pushes):
        out = []
        j = k
        while True:
            done = all(f.done() for f in pushes)
            name, want = CHECKS[j % len(CHECKS)]
            j += 1
            rc, _o, err, secs = profan_run("check", "--baseline", "main",
                                           "--run", name, "--history", url,
                                           db=family_db)
            out.append((name, want, rc, err, secs))
            if done:
                return out
    t0 = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(n_proc + n_check) as ex:
        pushes = [ex.submit(profan_run, "push", *names[i], "--to", url,
                            db=clones_db) for i in range(n_proc)]
        checks = [ex.submit(checker, k, pushes) for k in range(n_check)]
        res = [f.result()[:3] for f in pushes]
        secs = time.perf_counter() - t0
        got = [c for f in checks for c in f.result()]
    return {"pushes": res, "checks": got, "seconds": secs, "names": names}


def skipped(out):
    """The runs a push said were already there."""
    m = re.search(r"; (\d+) already there", out)
    return int(m.group(1)) if m else 0


def summary(r):
    """One line of numbers of a run()'s result."""
    lat = [c[4] for c in r["checks"]]
    return ("%d pushes of %d runs in %.1f s; %d checks, %d right, median"
            " %.2f s, max %.2f s"
            % (len(r["pushes"]), len(r["names"][0]), r["seconds"], len(lat),
               sum(c[1] == c[2] for c in r["checks"]),
               statistics.median(lat), max(lat)))
