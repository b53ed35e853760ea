#!/usr/bin/env python3
"""shape_profile.py — where each trace shape's ingest CPU goes, and why a
shape misses issue 15's "10x json.load" (bench/README.md).

usage: python3 bench/shape_profile.py [--profan build/profan]
                                      [--shape-scale 10] [--shape NAME ...]

For each shape of `bench.py --shapes` (the same inputs, cached in
bench/out/): one ingest alone for its wall and CPU seconds (os.wait4), one
json.load of the file for the budget (a tenth of it), and one ingest under
`perf record --call-graph dwarf` whose samples split that CPU into:

  parser     the parser threads (JSON scan, events, in-stream linker)
  inserts    the writer's SQLite row inserts (load_trace.c ins_exec: bind,
             step, reset of each row's INSERT)
  writer     the rest of the writer thread (interning, streaming totals,
             the rows kept for derive)
  derive SQL SQLite's share of the derive phases (indexes, INSERT ... SELECT
             of the views, the derived tables' rows)
  derive C   the rest of derive (the sweeps and walks over kept rows)
  other      start-up, schema check, commit

Everything on the SQLite connection runs one statement at a time: inserts
+ derive SQL ("SQLite floor") is a floor under the wall time of this design
on any number of cores, and CPU / 2 one on this 2-core machine; a shape
whose larger bound is above its budget cannot reach 10x json.load here by
tuning the C around SQLite.  The last row is the 8 dlrm rank files as one
run (bench/out/dlrm8.x10, built by `bench.py --shapes`), its budget 5x the
time of rank 0 alone (issue 15's target for it).  Needs perf (Debian
linux-perf).
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

import bench

BUCKETS = ("parser", "inserts", "writer", "derive SQL", "derive C", "other")


def classify(comm, frames):
    """The bucket of one sample: comm is the thread, frames innermost
    first (symbol names)."""
    if comm.startswith("profan-parse"):
        return "parser"
    if "ins_exec" in frames or "ins_row" in frames:
        return "inserts"
    if "load_trace_event" in frames or "writer_batch" in frames \
            or "ingest_trace_run" in frames:
        return "writer"
    # the unwinder may stop short of derive_run_after_load: any derive_*
    # frame (every derive phase's functions are named so) counts
    if any(f.startswith("derive_") for f in frames) \
            or "ingest_derive_commit" in frames:
        if any(f.startswith("sqlite3") for f in frames):
            return "derive SQL"
        return "derive C"
    return "other"


def perf_shares(profan, path, work):
    """{bucket: share of the samples} of one ingest of path under perf."""
    db = os.path.join(work, "profile.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    data = os.path.join(work, "profile.perf")
    subprocess.run(["perf", "record", "-q", "-F", "499", "--call-graph",
                    "dwarf,16384", "-o", data, profan, "--db", db, "ingest",
                    "--quiet", path], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    out = subprocess.run(["perf", "script", "-i", data, "-F",
                          "comm,period,ip,sym"], check=True,
                         capture_output=True, text=True).stdout
    os.remove(data)
    weight = collections.Counter()
    comm, period, frames = None, 0, []

    def flush():
        if comm is not None:
            weight[classify(comm, frames)] += period
    for line in out.split("\n"):
        if not line.strip():
            flush()
            comm, frames = None, []
            continue
        if not line[0].isspace():
            flush()
            head = line.split()
            comm, frames = head[0], []
            period = int(head[-1]) if head[-1].isdigit() else 1
            continue
        parts = line.split(None, 1)
        if len(parts) == 2:
            frames.append(re.sub(r"\+0x[0-9a-f]+$", "",
                                 parts[1].rsplit(" (", 1)[0]))
    flush()
    total = sum(weight.values()) or 1
    return {b: weight[b] / total for b in BUCKETS}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profan", default=os.path.join(bench.ROOT, "build",
                                                      "profan"))
    ap.add_argument("--work", default=os.path.join(bench.HERE, "out"))
    ap.add_argument("--shape-scale", type=int, default=10)
    ap.add_argument("--shape", action="append")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    print("| shape (x%d) | budget s | profan s | CPU s | parser |"
          " inserts | writer | derive SQL | derive C | other |"
          " SQLite floor s | CPU / 2 s |" % a.shape_scale)
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    inputs = []
    for name, src in bench.shape_inputs(a.work, a.shape_scale):
        if not a.shape or name in a.shape:
            inputs.append((name, bench.scaled(src, name, a.shape_scale,
                                              a.work), None))
    ranks = os.path.join(a.work, "dlrm8.x%d" % a.shape_scale)
    if os.path.isdir(ranks) and (not a.shape or "ranks8" in a.shape):
        inputs.append(("dlrm 8 ranks", ranks,
                       os.path.join(ranks, "rank0.x%d.json" % a.shape_scale)))
    with tempfile.TemporaryDirectory(dir=a.work) as tmp:
        db = os.path.join(tmp, "w.db")
        for name, f, one in inputs:
            _, wall, ph, cpu = bench.profan_run(a.profan, db, [f])
            if one:                       # 5x the time of one rank file
                budget = 5 * bench.profan_run(a.profan, db, [one])[1]
            else:                         # a tenth of json.load
                budget = bench.jsonload_run(f)[1] / 10
            sh = perf_shares(a.profan, f, tmp)
            floor = (sh["inserts"] + sh["derive SQL"]) * cpu
            print("| %s | %.2f | %.2f | %.2f | %s | %.2f | %.2f |" % (
                name, budget, wall, cpu,
                " | ".join("%.2f" % (sh[b] * cpu) for b in BUCKETS), floor,
                cpu / 2), flush=True)


if __name__ == "__main__":
    main()
