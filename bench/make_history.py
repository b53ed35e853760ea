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

Issue 19 (history databases of `profan merge --summaries-only`):

    python3 bench/make_history.py PROFAN DB N --clone-from RUN_DIR

ingests RUN_DIR, archives it with `profan merge --summaries-only` (so the
history holds what a real archive holds) and then adds N-1 copies of that
run directly with SQL (INSERT ... SELECT: 100,000 runs in about a minute
instead of 100,000 ingests): each copy has its own name, content hash and
a per-run factor (1 + 1 % noise, every 1000th run 15 % slower) applied to
every duration column (dur, ns, *_ns, *_dur: the step time bound_dur),
tagged branch=main (every 4th branch=dev).  It then prints the bytes per run (file size growth per run
after VACUUM, measured on the first 101 runs) and the wall time of
`profan trend` and `profan check` over the N runs.
"""
import argparse
import json
import os
import random
import shutil
import sqlite3
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


def archive(profan, run_dir, hist, work):
    """Ingest run_dir and archive it (summaries only) into a new hist."""
    os.makedirs(work, exist_ok=True)
    detail = os.path.join(work, "detail.db")
    for p in (detail, hist):
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(p + suffix):
                os.remove(p + suffix)
    subprocess.run([profan, "--db", detail, "ingest", "--quiet", "--name",
                    "r0", "--tag", "branch=main", run_dir], check=True)
    subprocess.run([profan, "merge", "--quiet", "--summaries-only", "--into",
                    hist, detail], check=True)


def clone_runs(hist, n_total, seed=19):
    """Add copies of the history's one run until it holds n_total runs."""
    con = sqlite3.connect(hist)
    con.execute("PRAGMA journal_mode=OFF")
    con.execute("PRAGMA synchronous=OFF")
    (r0,) = con.execute("SELECT min(id) FROM run").fetchone()
    (have,) = con.execute("SELECT count(*) FROM run").fetchone()
    rnd = random.Random(seed)
    con.execute("CREATE TEMP TABLE k(i INTEGER PRIMARY KEY, f REAL,"
                " branch TEXT)")
    con.executemany("INSERT INTO k VALUES(?, ?, ?)",
                    ((i, (1.15 if i % 1000 == 999 else 1.0)
                      * (1 + rnd.gauss(0, 0.01)),
                      "dev" if i % 4 == 3 else "main")
                     for i in range(have, n_total)))
    con.execute("INSERT INTO run(id, name, created_at, source_path,"
                " content_hash, tool_version, notes) SELECT ?1 + k.i,"
                " 'r' || k.i, created_at, source_path, printf('%016x',"
                " 1000003 * k.i), tool_version, notes FROM run, k"
                " WHERE run.id = ?1", (r0,))
    tabs = [t for (t,) in con.execute(
        "SELECT name FROM sqlite_master m WHERE type='table' AND EXISTS"
        "(SELECT 1 FROM pragma_table_info(m.name) WHERE name='run_id')"
        " AND name NOT IN ('baseline', 'run_tag')")]
    for t in tabs:
        cols = con.execute("SELECT name, pk FROM pragma_table_info(?)",
                           (t,)).fetchall()
        names, exprs = [], []
        for c, pk in cols:
            if c == "id" and pk:
                continue                  # a new row id
            names.append('"%s"' % c)
            if c == "run_id":
                exprs.append("?1 + k.i")
            elif c in ("dur", "ns") or c.endswith(("_ns", "_dur")):
                exprs.append('CAST(round("%s" * k.f) AS INTEGER)' % c)
            elif c == "value" and t.endswith("_run_metric"):
                # stored metrics (schema 026 and the hta/op tables): the
                # times scale with the durations, shares and counts not
                exprs.append("CASE WHEN t.metric GLOB '*_ms'"
                             " THEN t.value * k.f ELSE t.value END")
            else:
                exprs.append('t."%s"' % c)
        con.execute('INSERT INTO "%s"(%s) SELECT %s FROM "%s" t, k'
                    " WHERE t.run_id = ?1" % (t, ", ".join(names),
                                             ", ".join(exprs), t), (r0,))
    con.execute("INSERT INTO run_tag(run_id, key, value) SELECT ?1 + k.i,"
                " 'branch', k.branch FROM k", (r0,))
    con.commit()
    con.close()


def timed(cmd):
    """Best of 3 wall times of cmd (seconds) and its exit code."""
    best, rc = None, None
    for _ in range(3):
        t0 = time.perf_counter()
        rc = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL).returncode
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    return best, rc


def history_bench(profan, db, n, run_dir, work):
    """Bytes per run and trend/check times over an n-run history."""
    archive(profan, run_dir, db, work)
    clone_runs(db, 1)
    sqlite3.connect(db).execute("VACUUM").connection.close()
    one = os.path.getsize(db)
    clone_runs(db, 101)
    sqlite3.connect(db).execute("VACUUM").connection.close()
    per_run = (os.path.getsize(db) - one) / 100
    print("bytes per run: %.0f (%d B with 1 run, %d B with 101, VACUUMed)"
          % (per_run, one, os.path.getsize(db)))
    t0 = time.perf_counter()
    clone_runs(db, n)
    print("%d runs made with SQL in %.1f s, %.1f MB"
          % (n, time.perf_counter() - t0, os.path.getsize(db) / 1e6))
    subprocess.run([profan, "--db", db, "baseline", "set", "main", "r0"],
                   check=True, stdout=subprocess.DEVNULL)
    # a baseline near the end: check's history window (the runs before
    # it) is then full, and each of its runs' fingerprints is compared
    subprocess.run([profan, "--db", db, "baseline", "set", "late",
                    "r%d" % max(0, n - 10)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for cmd in (["trend", "step_time_median_ms"],
                ["trend", "step_time_median_ms", "--tag", "branch=main"],
                ["check", "--baseline", "main", "--run", "latest"],
                ["check", "--baseline", "main", "--run", "r%d" % (n - 1),
                 "--tag", "branch=main"],
                ["check", "--baseline", "late", "--run", "latest"],
                ["query", "diff-metrics", "--run", "latest", "--param",
                 "baseline=%d" % max(1, n - 10)],
                ["runs"]):
        secs, rc = timed([profan, "--db", db] + cmd)
        print("%-60s %6.3f s (exit %d)" % (" ".join(cmd), secs, rc))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("profan")
    ap.add_argument("db")
    ap.add_argument("n", type=int)
    ap.add_argument("--work", default=os.path.join(HERE, "out", "history"))
    ap.add_argument("--clone-from", metavar="RUN_DIR",
                    help="archive RUN_DIR and clone it with SQL (issue 19)")
    a = ap.parse_args()
    if a.clone_from:
        history_bench(a.profan, a.db, a.n, a.clone_from, a.work)
        return
    secs = build(a.profan, a.db, a.n, a.work)
    print("%d runs ingested in %.1f s" % (a.n, secs))


if __name__ == "__main__":
    main()
