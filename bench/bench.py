#!/usr/bin/env python3
"""bench.py — profan's speed and memory benchmark.

Builds the inputs (traces scaled from a real fixture with
../shared/tools/scale-trace), runs profan and the baselines side by side in
the same run, and prints one table: input, MB, seconds, MB/s, peak RSS,
DB MB, and the ratio to the baseline measured in the same run (the machines
are shared and noisy, so only ratios within one run are compared).

usage: python3 bench/bench.py [--profan build/profan] [--scales 1,10,30]
                              [--fixture NAME] [--work DIR] [--repeat N]
                              [--snapshot-scale N] [--nccl-copies N]
                              [--rank-scale N] [--history N] [--only snapshot]
       python3 bench/bench.py --shapes [--shape-scale 10] [--repeat 3]
                              [--base-repeat N] [--shape NAME ...]

--shapes prints one row per trace SHAPE instead (issue 15): every trace of
../shared/fixtures/traces of 5 MB or more, dlrm rank 0, and the synthetic
shapes of make_shapes.py (2021 layout, with_stack, profile_memory), each
scaled --shape-scale times; then the 1 MB fixed-cost row and 8 dlrm rank
files against one.  Each command runs under `nice -n 10`, --repeat times
(median kept), profan and json.load alternated on the same file.

Baselines, run on the same file in the same run:
  traces     python3 -c 'import json; json.load(open(F))' (what every Python
             analyser does first)
  snapshots  python3 -c 'import pickle; pickle.load(open(F, "rb"))' (the C
             unpickler alone), on a snapshot built by make_snapshot.py
  NCCL logs  wc -l (reading the file once)
Inputs are cached in --work (default bench/out/), which git ignores.
"""
import argparse
import glob
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import make_history
import query_bench

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared"))


def run_measured(cmd, env=None, ok=(0,)):
    """Run cmd; return (seconds, its stderr).  An exit code not in ok
    stops the benchmark (`profan check` exits 1 on a regression)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, err = p.communicate()
    dt = time.perf_counter() - t0
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode not in ok:
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


def median_of(n, fn):
    """Run fn n times; return the run of median seconds (fn returns
    (rss, seconds[, extra]))."""
    rs = sorted((fn() for _ in range(n)), key=lambda r: r[1])
    return rs[len(rs) // 2]


BIG = 5_000_000          # shapes: fixtures of at least this many bytes


def raw_size(path):
    if path.endswith(".gz"):
        import gzip
        with gzip.open(path, "rb") as f:
            n = 0
            while True:
                b = f.read(1 << 20)
                if not b:
                    return n
                n += len(b)
    return os.path.getsize(path)


def shape_inputs(work, scale):
    """[(shape name, 1x source)]: the big fixtures, dlrm rank 0, the
    synthetic shapes (built from the control trace)."""
    out = []
    tdir = os.path.join(SHARED, "fixtures", "traces")
    for f in sorted(os.listdir(tdir)):
        p = os.path.join(tdir, f)
        if raw_size(p) >= BIG:
            out.append((f.split(".")[0], p))
    out.append(("dlrm-rank0", sorted(glob.glob(os.path.join(
        SHARED, "fixtures", "runs", "dlrm-8rank", "*.json.gz")))[0]))
    ctl = os.path.join(tdir, "hta-diff-control-a100-rank3.json.gz")
    for shape in ("2021", "stack", "memory"):
        p = os.path.join(work, "shape-%s.x1.json" % shape)
        if not os.path.exists(p):
            subprocess.run([sys.executable, os.path.join(HERE, "make_shapes.py"),
                            ctl, shape, p], check=True)
        out.append(("synthetic-" + shape, p))
    return out


def scaled(src, name, scale, work):
    out = os.path.join(work, "%s.x%d.json" % (name, scale))
    if not os.path.exists(out):
        print("building %s ..." % out, file=sys.stderr)
        subprocess.run([sys.executable, os.path.join(SHARED, "tools", "scale-trace"),
                        src, str(scale), out + ".tmp"], check=True)
        os.replace(out + ".tmp", out)
    return out


# The phases that read rows back from the database, as PROFAN_TIMING=1
# names them: a file linked again from its rows ("linked again" lines,
# summed as "relink") and the rows fed again to what the writer keeps, gap
# steps, SQL over the stored rows in derive comm and derive op, and the
# step bound (the run's steps, launches and GPU activities by rowid range).
# Issue 15: where one remains it may cost at most 10 % of that ingest.
ROW_PASSES = ("relink", "rows fed again", "derive gap steps", "derive comm",
              "derive op", "derive step bound")
# derive op's parts (its "  op NAME" lines) that read stored rows back:
# the roofline metrics (a view over the run's op_gpu_time rows).  The
# others write rows kept in memory (calls), model the run's new
# signatures (model) or sweep the kept GPU spans (memcpy); when the parts
# are printed only these count, else the whole of "derive op".
OP_ROW_PARTS = ("roofline",)


def phases(stderr):
    """Phase lines of PROFAN_TIMING=1: {phase: ms} (parse+load and each
    derive step; 'derive hta' etc.; 'relink': the files linked again from
    their rows), plus '_parsers' (each parser thread's CPU ms) and
    '_writer' (the writer's CPU ms)."""
    ph = {"_parsers": [], "_writer": 0.0}
    for line in stderr.splitlines():
        if not line.startswith("profan: "):
            continue
        body = line[8:]
        if ": linked again from its rows:" in body:
            ms = float(body.split(" rows changed, ")[1].split()[0])
            ph["relink"] = ph.get("relink", 0.0) + ms
            continue
        if " ms" not in body or ": linker" in body:
            continue
        if body.startswith("parser thread"):
            ph["_parsers"].append(float(body.split("cpu")[1].split()[0]))
            continue
        if body.startswith("writer waited"):
            ph["_writer"] = float(body.split("cpu")[1].split()[0])
            continue
        if body.startswith("  op "):            # a part of derive op
            part = body.split(",")[0].split()   # wall ms; ", cpu N ms" after
            ph["_op:" + " ".join(part[1:-2])] = float(part[-2])
            continue
        name, _, rest = body.partition("  ")
        try:
            ph[name.strip()] = float(rest.split()[0])
        except (ValueError, IndexError):
            pass
    return ph


def timed(ph):
    """The timed phases of ph (the '_' entries left out)."""
    return {k: v for k, v in ph.items() if not k.startswith("_")}


def row_pass_ms(ph):
    """ms spent in derive phases that read the rows back (ROW_PASSES)."""
    names = ROW_PASSES
    parts = {k[4:]: v for k, v in ph.items() if k.startswith("_op:")}
    if parts:
        names = tuple(n for n in names if n != "derive op")
    return (sum(v for k, v in timed(ph).items() if k in names)
            + sum(v for k, v in parts.items() if k in OP_ROW_PARTS))


def child_run(cmd, env=None):
    """Run cmd at nice 10 (set in the child: no nice or time process in
    between, whose start costs ~15 ms on a 80 ms run); returns (exit code,
    wall s, CPU s user+sys, peak RSS MB, stderr) from os.wait4's rusage of
    that child alone."""
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err,
                             stdin=subprocess.DEVNULL, env=env,
                             preexec_fn=lambda: os.nice(10))
        _, status, ru = os.wait4(p.pid, 0)
        secs = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode(errors="replace")
    return (p.returncode, secs, ru.ru_utime + ru.ru_stime,
            ru.ru_maxrss / 1024.0, text)


def profan_run(profan, db, path):
    """One timed ingest with PROFAN_TIMING=1: (rss MB, s, phases, CPU s
    user+sys)."""
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    env = dict(os.environ, PROFAN_TIMING="1")
    rc, secs, cpu, rss, err = child_run(
        [profan, "--db", db, "ingest", "--quiet"] + path, env)
    if rc != 0:
        sys.exit("profan failed on %s:\n%s" % (path, err))
    return rss, secs, phases(err), cpu


def jsonload_run(path):
    rc, secs, _, rss, err = child_run(
        [sys.executable, "-c", "import json,sys; json.load(open(sys.argv[1]))",
         path])
    if rc != 0:
        sys.exit("json.load failed on %s:\n%s" % (path, err))
    return rss, secs


def dominant(ph):
    """'phase ms (share)' of the largest phase and the next two."""
    ph = timed(ph)
    total = sum(ph.values()) or 1.0
    top = max(ph.items(), key=lambda kv: kv[1]) if ph else ("", 0)
    second = sorted(((v, k) for k, v in ph.items() if k != top[0]), reverse=True)[:2]
    s = "%s %.0f ms (%.0f%%)" % (top[0], top[1], 100 * top[1] / total)
    s += "; then " + ", ".join("%s %.0f" % (k, v) for v, k in second)
    return s


def run_shapes(a):
    rows = []
    db = os.path.join(a.work, "shape.db")
    want = set(a.shape or [])
    for name, src in shape_inputs(a.work, a.shape_scale):
        if want and name not in want:
            continue
        f = scaled(src, name, a.shape_scale, a.work)
        mb = os.path.getsize(f) / 1e6
        pr, jr = [], []
        for i in range(a.repeat):           # alternated, median of each
            pr.append(profan_run(a.profan, db, [f]))
            if i < (a.base_repeat or a.repeat):
                jr.append(jsonload_run(f))
        pr.sort(key=lambda r: r[1])
        jr.sort(key=lambda r: r[1])
        prss, ps, ph, pcpu = pr[len(pr) // 2]
        jrss, js = jr[len(jr) // 2]
        rp = row_pass_ms(ph)
        rows.append((name, mb, ps, pcpu, mb / ps, js / ps, prss, jrss,
                     "%.0f ms (%.0f%%)" % (rp, rp / (10 * ps)), dominant(ph)))
        print("  %s: %.2f s vs json.load %.2f s" % (name, ps, js), file=sys.stderr)
    print("| shape (x%d) | MB | profan s (CPU s) | MB/s | x json.load | peak RSS "
          "MB (json.load) | row passes | dominant phase (PROFAN_TIMING=1) |"
          % a.shape_scale)
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        print("| %s | %.0f | %.2f (%.2f) | %.0f | %.1fx | %.0f (%.0f) | %s | %s |"
              % r)
    if not want or "one-mb" in want:
        one_mb(a, db)
    if not want or "ranks8" in want:
        eight_ranks(a, db)


def one_mb(a, db):
    """The fixed costs: a 1 MB trace (hta-no-rank) end to end."""
    one = os.path.join(SHARED, "fixtures", "traces", "hta-no-rank.json.gz")
    onej = os.path.join(a.work, "one-mb.json")
    if not os.path.exists(onej):
        import gzip
        with gzip.open(one, "rb") as fi, open(onej, "wb") as fo:
            fo.write(fi.read())
    r = sorted((profan_run(a.profan, db, [onej]) for _ in range(max(a.repeat, 11))),
               key=lambda r: r[1])
    rss, s, ph, cpu = r[len(r) // 2]
    print("\n1 MB trace (%s, %.1f MB) end to end: %.0f ms median of %d, "
          "%.0f ms CPU (target < 30 ms); %s"
          % (os.path.basename(onej), os.path.getsize(onej) / 1e6, 1000 * s, len(r),
             1000 * cpu, dominant(ph)))


def eight_ranks(a, db):
    """The 8 dlrm rank files (each scaled --shape-scale) as one run against
    rank 0 alone: wall and CPU ratios, and the estimate for 16 cores from
    the phases (the parsers in parallel, the writer and derive serial)."""
    rdir = os.path.join(a.work, "dlrm8.x%d" % a.shape_scale)
    srcs = sorted(glob.glob(os.path.join(SHARED, "fixtures", "runs", "dlrm-8rank",
                                         "*.json.gz")))
    if not os.path.isdir(rdir):
        os.makedirs(rdir + ".tmp", exist_ok=True)
        for i, src in enumerate(srcs):
            scaled(src, "rank%d" % i, a.shape_scale, rdir + ".tmp")
        os.rename(rdir + ".tmp", rdir)
    files = sorted(glob.glob(os.path.join(rdir, "*.json")))
    n = max(a.repeat, 3)
    s1 = median_of(n, lambda: profan_run(a.profan, db, [files[0]]))
    s8 = median_of(n, lambda: profan_run(a.profan, db, [rdir]))
    print("8 dlrm rank files x%d (%.0f MB) vs rank 0 alone, median of %d: "
          "wall %.2f s / %.2f s = %.1fx, CPU %.2f s / %.2f s = %.1fx (target "
          "<= 5x on %d cores); 8 ranks: %s"
          % (a.shape_scale, sum(os.path.getsize(x) for x in files) / 1e6, n,
             s8[1], s1[1], s8[1] / s1[1], s8[3], s1[3], s8[3] / s1[3],
             os.cpu_count(), dominant(s8[2])))
    e1, e8 = cores16(s1[2]), cores16(s8[2])
    print("on 16 cores (estimated from the phases: the slowest parser thread "
          "or the writer, whichever is longer, then derive and commit): "
          "%.2f s / %.2f s = %.1fx" % (e8, e1, e8 / e1))


def cores16(ph):
    """Seconds an ingest would take with a core per parser thread: the
    longer of the slowest parser's CPU and the writer's CPU (they overlap),
    then the phases after the load."""
    load = max(max(ph["_parsers"] or [0.0]), ph["_writer"])
    after = sum(v for k, v in timed(ph).items() if k != "parse+load")
    return (load + after) / 1000.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profan", default=os.path.join(ROOT, "build", "profan"))
    ap.add_argument("--scales", default="1,10,30")
    ap.add_argument("--fixture", default="hta-diff-control-a100-rank3.json.gz")
    ap.add_argument("--work", default=os.path.join(HERE, "out"))
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--snapshot-scale", type=int, default=30)
    ap.add_argument("--nccl-copies", type=int, default=150)
    ap.add_argument("--rank-scale", type=int, default=20,
                    help="scale of each of the 8 dlrm rank files (0: skip)")
    ap.add_argument("--history", type=int, default=1000,
                    help="runs of the trend/check database (0: skip)")
    ap.add_argument("--only", choices=("snapshot",),
                    help="run only this part (the snapshot ingest)")
    ap.add_argument("--shapes", action="store_true",
                    help="one row per trace shape (issue 15)")
    ap.add_argument("--shape-scale", type=int, default=10)
    ap.add_argument("--base-repeat", type=int, default=0,
                    help="with --shapes: runs of json.load per shape (default"
                    " --repeat; 1 when the machine is too loaded for more)")
    ap.add_argument("--shape", action="append",
                    help="with --shapes: only this shape (repeatable; "
                    "one-mb and ranks8 name the last two rows)")
    a = ap.parse_args()
    if a.shapes:
        os.makedirs(a.work, exist_ok=True)
        run_shapes(a)
        return
    if a.only == "snapshot":
        a.scales, a.nccl_copies, a.rank_scale, a.history = "", 0, 0, 0
    os.makedirs(a.work, exist_ok=True)
    rows = []
    for scale in [int(x) for x in a.scales.split(",") if x]:
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
        # every named query on this run (bench/query_bench.py; diff-* against
        # the run itself), best of --repeat
        qt = query_bench.query_times(a.profan, db, repeat=a.repeat)
        slow = sum(1 for q in qt if q[1] is not None and q[1] > 0.1)
        rows.append(("slowest query x%d: %s (%d of %d over 100 ms)"
                     % (scale, qt[0][0], slow, len(qt)), None, qt[0][1], None, None, None))
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
        # wc -l only shows what reading the file costs: no ratio (the NCCL
        # target is absolute, MB/s)
        rows.append(("profan ingest NCCL log x%d" % a.nccl_copies, mb, secs, rss,
                     os.path.getsize(db) / 1e6, None))

    # multi-rank: the 8 dlrm rank files, each scaled; one rank alone is the
    # baseline (8 ranks should take less than 8x one: parallel parse)
    if a.rank_scale > 0:
        rdir = os.path.join(a.work, "dlrm8.x%d" % a.rank_scale)
        srcs = sorted(glob.glob(os.path.join(SHARED, "fixtures", "runs", "dlrm-8rank",
                                             "*.json.gz")))
        if not os.path.isdir(rdir):
            os.makedirs(rdir + ".tmp", exist_ok=True)
            for i, src in enumerate(srcs):
                subprocess.run([sys.executable, os.path.join(SHARED, "tools", "scale-trace"),
                                src, str(a.rank_scale),
                                os.path.join(rdir + ".tmp", "rank%d.json" % i)], check=True)
            os.rename(rdir + ".tmp", rdir)
        files = sorted(glob.glob(os.path.join(rdir, "*.json")))
        one = files[0]
        mb1 = os.path.getsize(one) / 1e6
        mb8 = sum(os.path.getsize(f) for f in files) / 1e6
        rss1, s1 = best_of(a.repeat, lambda: fresh_ingest(one))
        rows.append(("profan ingest 1 rank (dlrm x%d)" % a.rank_scale, mb1, s1, rss1,
                     os.path.getsize(db) / 1e6, 1.0))
        rss8, s8 = best_of(a.repeat, lambda: fresh_ingest(rdir))
        rows.append(("profan ingest %d ranks (time / 1 rank: %.1fx)" % (len(files), s8 / s1),
                     mb8, s8, rss8, os.path.getsize(db) / 1e6, None))

    # history: a database of --history runs (make_history.py), then trend
    # and check over it
    if a.history > 0:
        hdb = os.path.join(a.work, "history.db")
        secs = make_history.build(a.profan, hdb, a.history,
                                  os.path.join(a.work, "history"))
        rows.append(("build %d-run database (ingest each; %.0f MB)"
                     % (a.history, os.path.getsize(hdb) / 1e6), None, secs,
                     None, None, None))
        for args in (["trend", "step_time_median_ms"], ["trend", "gpu_util_pct"],
                     ["trend", "cat_coarse:matmul_pct"], ["trend", "exposed_comm_ms"],
                     ["trend", "step_time_median_ms", "--last", str(a.history)],
                     ["trend", "step_time_median_ms", "--tag", "branch=dev"],
                     ["check", "--baseline", "1"],
                     ["check", "--baseline", str(a.history // 2), "--metric", "gpu_ms",
                      "--metric", "step_time_p90_ms", "--metric", "comm_pct"]):
            cmd = [a.profan, "--db", hdb] + args
            secs = best_of(a.repeat, lambda: (None, run_measured(cmd, ok=(0, 1))[0]))[1]
            rows.append(("%s (%d runs)" % (" ".join(args), a.history), None, secs,
                         None, None, None))

    print("| input | MB | seconds | MB/s | peak RSS MB | DB MB (% of input) | speed vs baseline |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, mb, secs, rss, dbmb, ratio in rows:
        print("| %s | %s | %.2f | %s | %s | %s | %s |" % (
            name, "%.0f" % mb if mb else "",
            secs, "%.1f" % (mb / secs) if mb and secs > 0 else "",
            "%.0f" % rss if rss else "",
            "%.1f (%.0f%%)" % (dbmb, 100 * dbmb / mb) if dbmb else "",
            "%.1fx" % ratio if ratio else ""))


if __name__ == "__main__":
    main()
