#!/usr/bin/env python3
"""make_history.py — build a database of many runs for `profan trend` and
`profan check` timings (issue 6: trend over 1,000 runs under 1 s).

Each run is the bundled sample run (fixtures/gen_sample_run.py: two ranks,
four ProfilerSteps, GEMM / elementwise / fill / NCCL kernels, memcpy and
memset) generated with a different random seed, so every run has its own
content (ingest deduplicates identical content) and its own step times and
kernel durations.  Every run is ingested with `profan ingest`, the way a CI
job would, tagged branch=main (every 4th run branch=dev).

usage: python3 bench/make_history.py PROFAN DB N [--work DIR]

Writes the traces to --work (default bench/out/history/, reused when
present) and prints the seconds the N ingests took.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "fixtures"))
import gen_sample_run  # noqa: E402  (the sample run's generator)


def write_run(outdir, seed):
    """Write run number seed's two rank traces into outdir."""
    os.makedirs(outdir, exist_ok=True)
    # the generator seeds random.Random(1000 + rank): offset it per run
    gen_sample_run.random = types.SimpleNamespace(
        Random=lambda s: random.Random(s + 7919 * seed))
    for rank in range(2):
        doc = gen_sample_run.rank_trace(rank, 2)
        with open(os.path.join(outdir, "rank%d.pt.trace.json" % rank), "w") as f:
            json.dump(doc, f)


def build(profan, db, n, work):
    """Build db with n runs (traces cached in work); returns the seconds
    the n ingests took."""
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    dirs = []
    for i in range(n):
        d = os.path.join(work, "run%04d" % i)
        if not os.path.exists(os.path.join(d, "rank1.pt.trace.json")):
            write_run(d, i)
        dirs.append(d)
    t0 = time.perf_counter()
    for i, d in enumerate(dirs):
        subprocess.run([profan, "--db", db, "ingest", "--quiet",
                        "--name", "run%04d" % i,
                        "--tag", "branch=%s" % ("dev" if i % 4 == 3 else "main"),
                        d], check=True)
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("profan")
    ap.add_argument("db")
    ap.add_argument("n", type=int)
    ap.add_argument("--work", default=os.path.join(HERE, "out", "history"))
    a = ap.parse_args()
    secs = build(a.profan, a.db, a.n, a.work)
    print("%d runs ingested in %.1f s" % (a.n, secs))


if __name__ == "__main__":
    main()
