#!/usr/bin/env python3
"""gate_scenarios.py — scenarios with a known truth for `profan check`.

Builds traces from a real Kineto trace (default: the hta-diff-control
A100 trace in ../shared/fixtures, 6 ProfilerSteps) whose steps take a
chosen time, ingests them and runs the gate.  Used by test_gate.py (a
short seeded grid in CI) and, as a script, for the whole matrix
(scripts/gate-scenarios.sh): slowdown x noise x steps x seeds, with and
without unrelated runs in the database, printing the detection table.

How a scenario trace is made (the truth is known by construction):
  - every step k of the output gets a target duration
        M * factor_k,  factor_k = (1 + slowdown) * (1 + u_k)
    with M the median ProfilerStep of the template and u_k uniform in
    [-noise, +noise] (seeded random.Random); warm-up factors can be put
    in front (the 37 % / 75 % steps of issue 13);
  - output step k replays template step j = k mod m (copy c = k div m
    for steps beyond the template's m): every event whose start lies in
    the template step's segment [T_j, T_j+1) is moved there and its
    start offset and duration (CPU and GPU alike) are multiplied by
    target_k / D_j, so the ProfilerStep annotation lasts exactly the
    target; ids (External id, correlation, flow id, ...) of copy c are
    offset by c * 10^8; events before the first step are kept once,
    those after the last template step only when the last copy is
    complete (otherwise the trace ends with the last kept segment: the
    profiler window cuts the tail, as in real traces).
Timestamps are written as float microseconds, so no rounding hides a
slowdown.

Verdict classes: regression (exit 1), inconclusive (exit 5), ok (exit 0:
ok, noise, improved), other (any other exit: a failure of the test).
"""
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import common  # noqa: E402

TEMPLATE = ("traces", "hta-diff-control-a100-rank3.json.gz")
UNRELATED = [("traces", "hta-alexnet-a100.json.gz"),
             ("traces", "hta-diff-test-v100-rank1.json.gz"),
             ("traces", "tracelens-b200-vllm-rank0.json.gz"),
             ("traces", "param-linear-2080ti.json.gz"),
             ("traces", "kineto-resnet50-2021.pt.trace.json.gz")]
ID_KEYS = ("External id", "correlation", "Profiler Event Index",
           "Sequence number")
ID_STRIDE = 10 ** 8
THIN_OP_US = 100
GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")


class Template:
    """A real trace cut into step segments, ready to be replayed."""

    def __init__(self, path, thin=False):
        """thin: keep only the ProfilerSteps, GPU activity (kernels,
        memcpy, memset) and CPU operators of THIN_OP_US or more (runtime
        calls, flows and short ops dropped): a tenth of the events, for
        the large grids."""
        doc = common.load_json(path)
        self.meta = {k: v for k, v in doc.items() if k != "traceEvents"}
        evs = doc["traceEvents"]
        st = sorted((e for e in evs if e.get("ph") == "X"
                     and e.get("cat") == "user_annotation"
                     and str(e.get("name", "")).startswith("ProfilerStep#")),
                    key=lambda e: e["ts"])
        self.first_step = int(st[0]["name"].split("#")[1])
        self.T = [float(e["ts"]) for e in st]
        self.D = [float(e["dur"]) for e in st]
        m = len(st)
        gap = self.T[1] - self.T[0] - self.D[0] if m > 1 else 0.0
        self.L = [self.T[j + 1] - self.T[j] for j in range(m - 1)] + \
            [self.D[-1] + gap]
        self.median = statistics.median(self.D)
        self.static = []            # untimed events (metadata), written once
        self.timed = []             # (segment, ts, dur or None, event)
        for e in evs:
            ts = e.get("ts")
            if thin and not self.keep_thin(e):
                continue
            if e.get("ph") == "M" or not isinstance(ts, (int, float)):
                self.static.append(e)
                continue
            if str(e.get("name", "")).startswith("ProfilerStep#"):
                seg = self.segment(float(ts))
                self.timed.append((seg, float(ts), float(e["dur"]), e))
                continue
            dur = e.get("dur")
            self.timed.append((self.segment(float(ts)), float(ts),
                               float(dur) if isinstance(dur, (int, float))
                               else None, e))
        self._frag = {}
        self.is_gpu = [str(e.get("cat", "")).lower() in GPU_CATS
                       for _, _, _, e in self.timed]

    @staticmethod
    def keep_thin(e):
        if e.get("ph") == "M":
            return True
        if e.get("ph") != "X":
            return False
        cat = str(e.get("cat", "")).lower()
        if cat in ("kernel", "gpu_memcpy", "gpu_memset", "user_annotation"):
            return True
        return cat == "cpu_op" and float(e.get("dur", 0)) >= THIN_OP_US

    def segment(self, t):
        """-1 before the first step, j in step j's segment, m after."""
        if t < self.T[0]:
            return -1
        for j in range(len(self.T)):
            if t < self.T[j] + self.L[j]:
                return j
        return len(self.T)

    def fragments(self, copy):
        """JSON text of each timed event of copy `copy` without ts/dur:
        ids offset, step names left for later.  Cached per copy."""
        if copy not in self._frag:
            out = []
            for seg, ts, dur, e in self.timed:
                e2 = {k: v for k, v in e.items() if k not in ("ts", "dur")}
                if copy:
                    if "id" in e2 and isinstance(e2["id"], int):
                        e2["id"] += copy * ID_STRIDE
                    args = e2.get("args")
                    if isinstance(args, dict):
                        args = dict(args)
                        for k in ID_KEYS:
                            if isinstance(args.get(k), int) and args[k] >= 0:
                                args[k] += copy * ID_STRIDE
                        e2["args"] = args
                step_ann = str(e2.get("name", "")).startswith("ProfilerStep#")
                if step_ann:
                    e2["name"] = "@STEP@"
                out.append(json.dumps(e2, separators=(",", ":"))[:-1])
            self._frag[copy] = out
        return self._frag[copy]

    def write(self, path, factors, tag, gpu_scale=1.0):
        """Write a trace whose step k lasts median * factors[k] µs;
        gpu_scale further multiplies the duration of every GPU activity
        (kernels, memcpy, memset) in place: < 1 leaves the GPU idle for
        that share of its busy time."""
        m = len(self.T)
        n = len(factors)
        ncopy = (n + m - 1) // m
        start = [self.T[0]]
        for k in range(n):
            j = k % m
            start.append(start[-1] + self.L[j] * self.median * factors[k]
                         / self.D[j])
        parts = []
        for c in range(ncopy):
            frags = self.fragments(c)
            for i, (seg, ts, dur, e) in enumerate(self.timed):
                if seg == -1:
                    if c:
                        continue
                    k, j, base = 0, 0, self.T[0]
                elif seg == m:
                    if c != ncopy - 1 or n % m:
                        continue
                    k = n - 1
                    j = m - 1
                    base = self.T[j]
                else:
                    k = c * m + seg
                    if k >= n:
                        continue
                    j, base = seg, self.T[seg]
                f = self.median * factors[k] / self.D[j]
                t = start[k] + (ts - base) * f
                frag = frags[i]
                if '"@STEP@"' in frag:
                    frag = frag.replace("@STEP@", "ProfilerStep#%d"
                                        % (self.first_step + k))
                if dur is None:
                    parts.append('%s,"ts":%.3f}' % (frag, t))
                else:
                    g = gpu_scale if self.is_gpu[i] else 1.0
                    parts.append('%s,"ts":%.3f,"dur":%.3f}'
                                 % (frag, t, dur * f * g))
        for e in self.static:
            parts.append(json.dumps(e, separators=(",", ":")))
        meta = dict(self.meta)
        meta["traceName"] = tag
        head = json.dumps(meta, separators=(",", ":"))[:-1]
        with open(path, "w") as fh:
            fh.write(head + ',"traceEvents":[\n')
            fh.write(",\n".join(parts))
            fh.write("]}\n")


def factors_for(slowdown, noise, steps, rnd, warmup=()):
    """Step factors: warm-up factors first, then steps x (1 + slowdown)
    x (1 + u), u uniform in [-noise, noise]."""
    return list(warmup) + [(1 + slowdown) * (1 + rnd.uniform(-noise, noise))
                           for _ in range(steps)]


def profan(db, *args):
    p = subprocess.run([common.PROFAN, "--db", db] + [str(a) for a in args],
                       capture_output=True, text=True, timeout=common.TIMEOUT)
    return p.returncode, p.stdout, p.stderr


def ingest(db, path, name):
    rc, out, err = profan(db, "ingest", "--quiet", "--name", name, path)
    if rc != 0:
        raise RuntimeError("ingest %s: %s" % (name, err))


def verdict_class(rc):
    return {0: "ok", 1: "regression", 5: "inconclusive"}.get(rc,
                                                              "rc%d" % rc)


def check(db, run, base, *extra):
    rc, out, err = profan(db, "--format", "json", "check", "--baseline",
                          base, "--run", run, *extra)
    return verdict_class(rc), rc, out, err


def unrelated_db(workdir):
    """A database holding the unrelated fixtures (made once, then copied)."""
    path = os.path.join(workdir, "unrelated.db")
    if not os.path.exists(path):
        for i, parts in enumerate(UNRELATED):
            ingest(path, common.shared(*parts), "unrelated%d" % i)
    return path


def run_family(tpl, workdir, steps, noise, seed, slowdowns, with_unrelated):
    """One baseline and one run per slowdown, all with the same step count,
    noise and seed; returns {(slowdown, unrelated): class}."""
    rnd = random.Random("%d/%g/%d" % (steps, noise, seed))
    tag = "s%d-n%g-seed%d" % (steps, noise, seed)
    fam = os.path.join(workdir, tag)
    os.makedirs(fam, exist_ok=True)
    files = []
    bpath = os.path.join(fam, "base.json")
    tpl.write(bpath, factors_for(0, noise, steps, rnd), tag + "-base")
    files.append(("base", bpath))
    for s in slowdowns:
        p = os.path.join(fam, "run%g.json" % s)
        tpl.write(p, factors_for(s / 100.0, noise, steps, rnd),
                  "%s-run%g" % (tag, s))
        files.append(("run%g" % s, p))
    out = {}
    variants = [False, True] if with_unrelated else [False]
    for unrel in variants:
        db = os.path.join(fam, "u.db" if unrel else "clean.db")
        if unrel:
            shutil.copy(unrelated_db(workdir), db)
        for name, p in files:
            ingest(db, p, name)
        for s in slowdowns:
            out[(s, unrel)] = check(db, "run%g" % s, "base")[0]
    shutil.rmtree(fam)
    return out


def matrix(steps_list, noise_list, slowdowns, seeds, with_unrelated=True,
           jobs=2, workdir=None, progress=None, thin=True, tpl=None,
           unrelated_seeds=None, seeds_per_noise=None):
    """Every family of the grid; returns {(steps, noise, slowdown, seed,
    unrelated): class}.  Without noise every seed gives the same traces:
    seed 0 runs and stands for all of them.  unrelated_seeds: only the
    first N seeds of a cell are also run with unrelated runs (None: all).
    seeds_per_noise: {noise: seeds} overriding seeds for some noise
    levels.  Families run seed by seed, so a partial run covers every cell
    (progress gets each family's results as they come)."""
    tpl = tpl or Template(common.shared(*TEMPLATE), thin=thin)
    own = workdir is None
    workdir = workdir or tempfile.mkdtemp(prefix="gate-scen-")
    if with_unrelated:
        unrelated_db(workdir)
    res = {}
    def nseeds(nz):
        if not nz:
            return 1
        return (seeds_per_noise or {}).get(nz, seeds)
    jobsl = [(st, nz, sd) for sd in range(max(nseeds(n) for n in noise_list))
             for st in steps_list for nz in noise_list if sd < nseeds(nz)]

    def one(job):
        st, nz, sd = job
        unrel = with_unrelated and (unrelated_seeds is None
                                    or sd < unrelated_seeds)
        return job, run_family(tpl, workdir, st, nz / 100.0, sd, slowdowns,
                               unrel)
    try:
        with ThreadPoolExecutor(max_workers=jobs) as ex:
            for (st, nz, sd), out in ex.map(one, jobsl):
                for (s, unrel), cls in out.items():
                    for sd2 in ([sd] if nz else range(seeds)):
                        res[(st, nz, s, sd2, unrel)] = cls
                if progress:
                    progress(st, nz, sd, out)
    finally:
        if own:
            shutil.rmtree(workdir, ignore_errors=True)
    return res


def table(res, steps_list, noise_list, slowdowns):
    """Markdown: per steps and noise, for each slowdown the counts
    regression / inconclusive / ok over the seeds (clean databases), and
    how many verdicts changed with unrelated runs present (of how many
    compared)."""
    lines = ["| steps | noise ± | seeds | " + " | ".join("+%g %%" % s
                                                         for s in slowdowns)
             + " | changed by unrelated runs |",
             "|---|---|---|" + "---|" * len(slowdowns) + "---|"]
    for st in steps_list:
        for nz in noise_list:
            cells = []
            flips = compared = 0
            seeds = len(set(k[3] for k in res if k[0] == st and k[1] == nz
                            and not k[4]))
            if not seeds:
                continue
            for s in slowdowns:
                keys = [k for k in res if k[0] == st and k[1] == nz
                        and k[2] == s and not k[4]]
                c = {"regression": 0, "inconclusive": 0, "ok": 0}
                for k in keys:
                    c[res[k]] = c.get(res[k], 0) + 1
                    u = (k[0], k[1], k[2], k[3], True)
                    if u in res:
                        compared += 1
                        flips += res[u] != res[k]
                cells.append("%d / %d / %d" % (c["regression"],
                                               c["inconclusive"], c["ok"]))
            lines.append("| %d | %g %% | %d | %s | %d of %d |"
                         % (st, nz, seeds, " | ".join(cells), flips,
                            compared))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profan", default=common.PROFAN)
    ap.add_argument("--steps", default="3,5,10,20")
    ap.add_argument("--noise", default="0,1,2,5", help="± %% per step")
    ap.add_argument("--slowdown", default="0,2,5,10,20,30", help="%%")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--no-unrelated", action="store_true")
    ap.add_argument("--unrelated-seeds", type=int, default=None,
                    help="only the first N seeds also with unrelated runs")
    ap.add_argument("--seeds-per-noise", default="",
                    help="NOISE:SEEDS,... e.g. 2:20,5:5")
    ap.add_argument("--jsonl", help="append each family's verdicts here")
    ap.add_argument("--table-from", help="print the table of a --jsonl "
                    "file (a run stopped early) and exit")
    a = ap.parse_args()
    common.PROFAN = os.path.abspath(a.profan)
    steps = [int(x) for x in a.steps.split(",")]
    noise = [float(x) for x in a.noise.split(",")]
    slow = [float(x) for x in a.slowdown.split(",")]
    spn = {float(k): int(v) for k, v in
           (x.split(":") for x in a.seeds_per_noise.split(",") if x)}
    if a.table_from:
        res = {}
        with open(a.table_from) as fh:
            for line in fh:
                st, nz, s, sd, unrel, cls = json.loads(line)
                res[(st, nz, s, sd, unrel)] = cls
        print(table(res, steps, noise, slow))
        return 0

    def progress(st, nz, sd, out):
        print("steps %d noise %g seed %d done" % (st, nz, sd),
              file=sys.stderr, flush=True)
        if a.jsonl:
            with open(a.jsonl, "a") as fh:
                for (s, unrel), cls in out.items():
                    fh.write(json.dumps([st, nz, s, sd, unrel, cls]) + "\n")
    res = matrix(steps, noise, slow, a.seeds, not a.no_unrelated, a.jobs,
                 unrelated_seeds=a.unrelated_seeds, seeds_per_noise=spn,
                 progress=progress)
    bad = sorted(set(v for v in res.values()
                     if v not in ("ok", "regression", "inconclusive")))
    print("regression / inconclusive / ok out of %d seeds per cell (clean "
          "database); slowdown across, steps and noise down\n" % a.seeds)
    print(table(res, steps, noise, slow))
    if bad:
        print("\nunexpected exit codes: %s" % ", ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
