#!/usr/bin/env python3
"""make_ranks.py — a many-rank run for benchmarks (issue 19: 256 ranks).

Makes N rank traces out of the 8 traces of the dlrm-8rank fixture
(../shared/fixtures/runs/dlrm-8rank): rank r is a copy of fixture rank
r % 8 with distributedInfo rewritten (rank r, world_size N), every
timestamp moved by a small per-rank clock offset (uniform in +-jitter_us,
seeded), and one deliberately late rank (--late, default N*137//256: 137
of 256) whose host stalls --late-ms before each collective, so that it
arrives at every collective last and the others wait for it
(tests/e2e/straggler_scenarios.py's "host" delay; a whole timeline moved
later is a clock offset, which profan takes out).  Plain JSON files
named rankNNNN.pt.trace.json.

usage: python3 bench/make_ranks.py OUTDIR [--ranks 256] [--jitter-us 30]
                                   [--late R] [--late-ms 3] [--seed 19]

Prints the number of files, their total size and the seconds taken.
"""
import argparse
import gzip
import json
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FIXTURE = os.path.normpath(os.path.join(ROOT, "..", "shared", "fixtures",
                                        "runs", "dlrm-8rank"))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
import straggler_scenarios as scen  # noqa: E402


def load_fixture():
    """The 8 fixture traces by their distributedInfo rank."""
    docs = {}
    for f in sorted(os.listdir(FIXTURE)):
        with gzip.open(os.path.join(FIXTURE, f), "rt") as fh:
            doc = json.load(fh)
        docs[doc["distributedInfo"]["rank"]] = doc
    return docs


def rank_doc(src, rank, world, shift_us):
    """A copy of trace src as rank `rank` of `world`, times moved by
    shift_us (integer microseconds keep the absolute-us regime)."""
    out = dict(src)
    out["distributedInfo"] = dict(src["distributedInfo"], rank=rank,
                                  world_size=world)
    out["traceName"] = "rank%04d" % rank
    evs = []
    for e in src["traceEvents"]:
        if "ts" in e and isinstance(e["ts"], (int, float)):
            e = dict(e)
            e["ts"] = e["ts"] + shift_us
        evs.append(e)
    out["traceEvents"] = evs
    return out


def make(outdir, n, jitter_us=30, late=None, late_ms=3.0, seed=19):
    """Write n rank traces into outdir; returns (files, bytes)."""
    docs = load_fixture()
    rnd = random.Random(seed)
    late = n * 137 // 256 if late is None else late
    os.makedirs(outdir, exist_ok=True)
    total = 0
    run = {}
    for r in range(n):
        shift = rnd.randint(-jitter_us, jitter_us)
        run[r] = ("rank%04d.pt.trace.json" % r,
                  rank_doc(docs[r % len(docs)], r, n, shift))
    if 0 <= late < n:
        ncoll = min(len(scen.Rank(doc).comm) for _, doc in run.values())
        run = scen.edit(run, delays=[(late, "host", int(late_ms * 1000),
                                      range(ncoll))])
    for r in range(n):
        name, doc = run[r]
        path = os.path.join(outdir, name)
        with open(path, "w") as fh:
            json.dump(doc, fh, separators=(",", ":"))
        total += os.path.getsize(path)
    return n, total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--ranks", type=int, default=256)
    ap.add_argument("--jitter-us", type=int, default=30)
    ap.add_argument("--late", type=int, default=None)
    ap.add_argument("--late-ms", type=float, default=3.0)
    ap.add_argument("--seed", type=int, default=19)
    a = ap.parse_args()
    if not os.path.isdir(FIXTURE):
        sys.exit("make_ranks.py: fixture not found: " + FIXTURE)
    t0 = time.perf_counter()
    n, size = make(a.outdir, a.ranks, a.jitter_us, a.late, a.late_ms, a.seed)
    print("%d rank files, %.1f MB, %.1f s" % (n, size / 1e6,
                                              time.perf_counter() - t0))


if __name__ == "__main__":
    main()
