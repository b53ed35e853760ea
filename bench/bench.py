#!/usr/bin/env python3
"""bench.py — profan's speed and memory benchmark.

Builds the inputs (traces scaled from a real fixture with
../shared/tools/scale-trace), runs profan and the baselines side by side in
the same run, and prints one table: input, MB, seconds, MB/s, peak RSS,
DB MB, and the ratio to the baseline measured in the same run (the machines
are shared and noisy, so only ratios within one run are compared).

usage: python3 bench/bench.py [--profan build/profan] [--scales 1,10,30]
                              [--fixture NAME] [--work DIR] [--repeat N]

Baselines, run on the same file in the same run:
  traces     python3 -c 'import json; json.load(open(F))' (what every Python
             analyser does first)
  snapshots  python3 -c 'import pickle; pickle.load(open(F, "rb"))' (the C
             unpickler alone), on a snapshot built by make_snapshot.py
  NCCL logs  wc -l (reading the file once)
Inputs are cached in --work (default bench/out/), which git ignores.
"""
import argparse
import os
import resource
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared"))


def run_measured(cmd, env=None):
    """Run cmd; return (seconds, peak RSS in MB of the child) ."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, err = p.communicate()
    dt = time.perf_counter() - t0
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit("command failed: %s\n%s" % (" ".join(cmd), err.decode(errors="replace")))
    return dt, err.decode(errors="replace")


def peak_rss_mb(cmd, env=None):
    """Peak RSS of one run of cmd, via /usr/bin/time if present."""
    if os.path.exists("/usr/bin/time"):
        p = subprocess.run(["/usr/bin/time", "-f", "%M %e"] + cmd, capture_output=True,
                           text=True, env=env)
        if p.returncode != 0:
            sys.exit("command failed: %s\n%s" % (" ".join(cmd), p.stderr))
        kb, secs = p.stderr.strip().splitlines()[-1].split()
        return int(kb) / 1024.0, float(secs)
    dt, _ = run_measured(cmd, env)
    return float("nan"), dt


def make_trace(fixture, scale, work):
    out = os.path.join(work, "%s.x%d.json" % (fixture.split(".")[0], scale))
    if not os.path.exists(out):
        src = os.path.join(SHARED, "fixtures", "traces", fixture)
        print("building %s ..." % out, file=sys.stderr)
        subprocess.run([sys.executable, os.path.join(SHARED, "tools", "scale-trace"),
                        src, str(scale), out], check=True)
    return out


def best_of(n, fn):
    best = None
    for _ in range(n):
        r = fn()
        if best is None or r[1] < best[1]:
            best = r
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profan", default=os.path.join(ROOT, "build", "profan"))
    ap.add_argument("--scales", default="1,10,30")
    ap.add_argument("--fixture", default="hta-diff-control-a100-rank3.json.gz")
    ap.add_argument("--work", default=os.path.join(HERE, "out"))
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--snapshot-scale", type=int, default=30)
    ap.add_argument("--nccl-copies", type=int, default=150)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    rows = []
    for scale in [int(x) for x in a.scales.split(",")]:
        trace = make_trace(a.fixture, scale, a.work)
        mb = os.path.getsize(trace) / 1e6
        # baseline: Python's json.load of the same file
        base_rss, base_s = best_of(a.repeat, lambda: peak_rss_mb(
            [sys.executable, "-c", "import json,sys; json.load(open(sys.argv[1]))", trace]))
        rows.append(("json.load x%d" % scale, mb, base_s, base_rss, None, 1.0))
        db = os.path.join(a.work, "bench.db")

        def ingest():
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(db + suffix):
                    os.remove(db + suffix)
            return peak_rss_mb([a.profan, "--db", db, "ingest", "--quiet", trace])
        rss, secs = best_of(a.repeat, ingest)
        dbmb = os.path.getsize(db) / 1e6
        rows.append(("profan ingest x%d" % scale, mb, secs, rss, dbmb, base_s / secs))
        # every named query on this run
        qs = subprocess.run([a.profan, "queries"], capture_output=True, text=True).stdout
        worst = (0.0, "")
        for line in qs.splitlines():
            if not line.strip():
                continue
            name = line.split()[0]
            t0 = time.perf_counter()
            p = subprocess.run([a.profan, "--db", db, "--format", "csv", "query", name],
                               capture_output=True, text=True)
            dt = time.perf_counter() - t0
            if p.returncode == 0 and dt > worst[0]:
                worst = (dt, name)
        rows.append(("slowest query x%d: %s" % (scale, worst[1]), None, worst[0], None, None, None))
    db = os.path.join(a.work, "bench.db")

    def fresh_ingest(path):
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(db + suffix):
                os.remove(db + suffix)
        return peak_rss_mb([a.profan, "--db", db, "ingest", "--quiet", path])

    # a large memory snapshot: the cs336 fixture's trace repeated
    if a.snapshot_scale > 0:
        snap = os.path.join(a.work, "cs336.x%d.pickle" % a.snapshot_scale)
        if not os.path.exists(snap):
            subprocess.run([sys.executable, os.path.join(HERE, "make_snapshot.py"),
                            os.path.join(SHARED, "fixtures", "snapshots",
                                         "cs336-fullstep-2025.pickle"),
                            str(a.snapshot_scale), snap], check=True)
        mb = os.path.getsize(snap) / 1e6
        brss, bs = best_of(a.repeat, lambda: peak_rss_mb(
            [sys.executable, "-c", "import pickle,sys; pickle.load(open(sys.argv[1],'rb'))", snap]))
        rows.append(("pickle.load snapshot x%d" % a.snapshot_scale, mb, bs, brss, None, 1.0))
        rss, secs = best_of(a.repeat, lambda: fresh_ingest(snap))
        rows.append(("profan ingest snapshot x%d" % a.snapshot_scale, mb, secs, rss,
                     os.path.getsize(db) / 1e6, bs / secs))
    # a long NCCL log: the nccl-tests fixture repeated
    if a.nccl_copies > 0:
        log = os.path.join(a.work, "nccl.x%d.log" % a.nccl_copies)
        if not os.path.exists(log):
            with open(os.path.join(SHARED, "fixtures", "nccl",
                                   "nccl-tests-2.27.7-2rank.log"), "rb") as f:
                text = f.read()
            with open(log, "wb") as f:
                for _ in range(a.nccl_copies):
                    f.write(text)
        mb = os.path.getsize(log) / 1e6
        brss, bs = best_of(a.repeat, lambda: peak_rss_mb(["wc", "-l", log]))
        rows.append(("wc -l NCCL log x%d" % a.nccl_copies, mb, bs, brss, None, 1.0))
        rss, secs = best_of(a.repeat, lambda: fresh_ingest(log))
        rows.append(("profan ingest NCCL log x%d" % a.nccl_copies, mb, secs, rss,
                     os.path.getsize(db) / 1e6, bs / secs))

    print("| input | MB | seconds | MB/s | peak RSS MB | DB MB (% of input) | speed vs baseline |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, mb, secs, rss, dbmb, ratio in rows:
        print("| %s | %s | %.2f | %s | %s | %s | %s |" % (
            name, "%.0f" % mb if mb else "",
            secs, "%.1f" % (mb / secs) if mb else "",
            "%.0f" % rss if rss else "",
            "%.1f (%.0f%%)" % (dbmb, 100 * dbmb / mb) if dbmb else "",
            "%.1fx" % ratio if ratio else ""))


if __name__ == "__main__":
    main()
