#!/usr/bin/env python3
"""footprint.py — database size and peak RSS per trace shape (issue 35).

For every shape of `bench.py --shapes` (the fixtures of 5 MB or more, dlrm
rank 0, the synthetic shapes), scaled --shape-scale times: the JSON size,
then for each profan build given (--base first, e.g. main built elsewhere,
then --profan) the database size, its share of the JSON, the peak RSS of
the ingest, the ingest's wall seconds and its ratio to json.load of the
same file, measured in the same run (alternated, median of --repeat).
Targets: database <= 25 % of the JSON, peak RSS <= 150 MB.

With --tables N it also prints, per shape and build, the N largest
tables and indexes (dbstat when SQLite has it, else page counts).

usage: python3 bench/footprint.py [--profan build/profan] [--base B]
                                  [--shape-scale 10] [--repeat 1]
                                  [--work DIR] [--shape NAME ...]
                                  [--tables N]
"""
import argparse
import os
import sqlite3
import sys

import bench

RATIO_MAX = 0.25
RSS_MAX_MB = 150.0


def db_size(db):
    """Bytes of the database file after the ingest (the WAL is
    checkpointed by the closing connection)."""
    return sum(os.path.getsize(db + s) for s in ("", "-wal")
               if os.path.exists(db + s))


def largest(db, n):
    """[(name, bytes)] of the n largest b-trees of db."""
    con = sqlite3.connect(db)
    try:
        rows = con.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"
                           " ORDER BY 2 DESC LIMIT ?", (n,)).fetchall()
    except sqlite3.Error:
        rows = []
    con.close()
    return rows


def measure(profan, db, f, repeat, tables):
    """(db bytes, rss MB, s, [(name, bytes)]) of the median of repeat
    ingests of f into a fresh db."""
    runs = []
    for _ in range(repeat):
        rss, secs, _, _ = bench.profan_run(profan, db, [f])
        runs.append((rss, secs, db_size(db), largest(db, tables)
                     if tables else []))
    runs.sort(key=lambda r: r[1])
    rss, secs, size, big = runs[len(runs) // 2]
    return size, rss, secs, big


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profan", default=os.path.join(bench.ROOT, "build",
                                                     "profan"))
    ap.add_argument("--base", help="a second profan build measured first "
                    "in the same run (before)")
    ap.add_argument("--shape-scale", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--work", default=os.path.join(bench.HERE, "out"))
    ap.add_argument("--shape", action="append")
    ap.add_argument("--tables", type=int, default=0)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    builds = ([("before", a.base)] if a.base else []) + [("after", a.profan)]
    want = set(a.shape or [])
    fails = 0
    print("| shape (x%d) | build | JSON MB | DB MB | DB / JSON | peak RSS MB "
          "| ingest s | json.load s | x json.load |" % a.shape_scale)
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|", flush=True)
    for name, src in bench.shape_inputs(a.work, a.shape_scale):
        if want and name not in want:
            continue
        f = bench.scaled(src, name, a.shape_scale, a.work)
        db = os.path.join(a.work, "footprint-%s.db" % name)
        jb = os.path.getsize(f)
        js = sorted(bench.jsonload_run(f)[1] for _ in range(a.repeat))
        js = js[len(js) // 2]
        for label, exe in builds:
            size, rss, secs, big = measure(exe, db, f, a.repeat, a.tables)
            ok = size <= RATIO_MAX * jb and rss <= RSS_MAX_MB
            fails += label == "after" and not ok
            print("| %s | %s | %.0f | %.1f | %.1f %% | %.0f | %.2f | %.2f | "
                  "%.2fx%s |" % (name, label, jb / 1e6, size / 1e6,
                                 100.0 * size / jb, rss, secs, js, js / secs,
                                 "" if ok else " **over**"), flush=True)
            print("  %s %s: DB %.1f MB (%.1f %%), RSS %.0f MB, %.2f s"
                  % (name, label, size / 1e6, 100.0 * size / jb, rss, secs),
                  file=sys.stderr)
            for t, b in big:
                print("    %-40s %8.1f MB" % (t, b / 1e6), file=sys.stderr)
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(db + suffix):
                os.remove(db + suffix)
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
