#!/usr/bin/env python3
"""gate_scenarios.py — the replay generator: scenarios with a known truth
for `profan check`, made from real multi-step traces with their own
variation (warm-up, data-loader stalls, GPU lag).

Every trace in ../shared/fixtures and fixtures/ (a file, or a run
directory of rank files) with two or more ProfilerStep ranges per file is
a template.  A scenario replays it step by step: step k of the output is
step k of the template, with its own events, stretched.

How an output trace is made (the truth is known by construction):
  - noise: step k gets a factor (1 + u_k), u_k uniform in [-noise,
    +noise] (seeded random.Random); a baseline and a run draw their own;
  - a mode adds the change:
      uniform   every step x (1 + slowdown);
      one       a stall: the template's middle step (not the last) longer
                by slowdown x its duration, idle before its work (the
                CPU's and the GPU's events from that step on move later;
                no event gets longer);
      gpu       the GPU kernels' durations x (1 + slowdown); the CPU
                moves only where it waited for the GPU (see below);
  - the stretch is a time warp per timeline.  CPU events (ops, runtime
    calls, annotations, CPU flow ends, instants) follow W_cpu, which
    stretches each CPU step [T_k, T_k+1) by its factor around T_k (the
    last step's segment runs to the end of the trace; events before the
    first step stay).  GPU events (kernels, memcpys, memsets, GPU
    annotations and GPU flow ends, by the (pid, tid) rows the GPU
    activity is on) follow W_gpu, the same with the anchors G_k = the
    first GPU activity launched from CPU step k: the GPU work a step
    launched is stretched with that step even when it runs a step later
    (a CPU running ahead, tracelens-mi300);
  - gpu mode, after the warp: a discrete-event replay.  Runtime calls and
    GPU activities are taken in time order; a launched activity starts at
    max(its start + the CPU's delay at its launch, the end of the
    previous activity on its stream + min(the original gap, 5 us)), and
    after the new end of another stream's activity when it started within
    50 us of that one's end while its own stream was idle and its launch
    long done (a wait on an event of that stream); a kernel lasts
    dur x (1 + slowdown).  A call that waited for the GPU
    (a *Synchronize* call whose end came after the end of GPU work
    launched before it, a *Memcpy* call that returned after its own copy)
    ends max(its new start, the new end of that GPU work) + the time it
    took after the GPU work ended; what it ends later delays every later
    CPU event (one delay for all CPU threads).
Timestamps are written as float microseconds (3 decimals).  With no
noise and no change the output is the template, event for event.

A family is one template, noise level and seed: a baseline (no change,
its own draws) and a run per mode and slowdown (all with the run's one
set of draws, so that within a family only the change differs: the gate
must be monotonic in it).  Each is ingested into a fresh database
(optionally one holding unrelated fixtures first) and checked with the
defaults.  The identical copy (the template's bytes, decompressed) is
checked against the template in every database too.

Verdict classes: regression (exit 1), inconclusive (exit 5), ok (exit 0:
ok, noise, improved), other (any other exit: a failure).  Used by
test_gate.py (a short seeded grid in CI) and, as a script, for the
whole matrix (scripts/gate-scenarios.sh), printing the table.
"""
import argparse
import bisect
import glob
import gzip
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import common  # noqa: E402

GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset",
            "gpu_user_annotation", "cuda_sync")
ACTIVITY_CATS = ("kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset")
RUNTIME_CATS = ("cuda_runtime", "runtime", "cuda_driver")
STEP_CATS = ("user_annotation", "operator", "cpu_op")
GAP_CAP_US = 5.0
DEP_WINDOW_US = 50.0
MODES = ("uniform", "one", "gpu")
# The unrelated runs of the "changed by unrelated runs" column: traces of
# other models and memory snapshots (none is a template's lineage).
UNRELATED = [("traces", "hta-alexnet-a100.json.gz"),
             ("traces", "tracelens-b200-vllm-rank0.json.gz"),
             ("traces", "param-linear-2080ti.json.gz"),
             ("snapshots", "tomi-small.pickle"),
             ("snapshots", "llm-inference-torch20-history.pickle")]
# The short grid of the e2e suite: the GPU-bound trace whose CPU runs
# ahead, a CPU step that waits for the GPU each step, and the trace with
# a data-loader stall.
CI_TEMPLATES = [("traces", "tracelens-mi300-resnet-ckpt.json.gz"),
                ("traces", "hta-diff-control-a100-rank3.json.gz"),
                ("traces", "kineto-resnet50-2021-workers4.pt.trace.json.gz")]


def _cat(e):
    return str(e.get("cat", "")).lower()


def is_step(e):
    return (e.get("ph") == "X" and _cat(e) in STEP_CATS
            and str(e.get("name", "")).startswith("ProfilerStep#"))


def corr(e):
    a = e.get("args")
    if isinstance(a, dict):
        c = a.get("correlation")
        if isinstance(c, int):
            return c
    return None


class Warp:
    """A monotone piecewise-linear map of a timeline: anchors[k] goes to
    values[k]; between anchors linear; past the last anchor slope
    `last`; before the first, `before` (a function) or the identity.
    jump: time added after anchors[jump_at] (a stall there); strict: not
    to what is at the anchor itself (the stalled step's own range starts
    on time and ends late)."""

    def __init__(self, anchors, values, last, before=None, jump_at=None,
                 jump=0.0, strict=False):
        self.a, self.v, self.last, self.before = (list(anchors), list(values),
                                                  last, before)
        self.jump_at, self.jump, self.strict = jump_at, jump, strict

    @staticmethod
    def steps(anchors, factors, **kw):
        """Each segment [a_k, a_k+1) stretched by factors[k] around a_k."""
        v = []
        for k, t in enumerate(anchors):
            v.append(t if not k else v[-1] + (t - anchors[k - 1])
                     * factors[k - 1])
        return Warp(anchors, v, factors[len(anchors) - 1] if anchors else 1,
                    **kw)

    def jumped(self, t):
        """Whether t gets the jump."""
        j = self.jump_at
        if j is None or not self.jump or j >= len(self.a):
            return False
        return t > self.a[j] or (t == self.a[j] and not self.strict)

    def base(self, t):
        if not self.a or t < self.a[0]:
            return self.before(t) if self.before else t
        k = bisect.bisect_right(self.a, t) - 1
        if k + 1 < len(self.a):
            a0, a1 = self.a[k], self.a[k + 1]
            f = (self.v[k + 1] - self.v[k]) / (a1 - a0) if a1 > a0 else 1.0
            return self.v[k] + (t - a0) * f
        return self.v[k] + (t - self.a[k]) * self.last

    def __call__(self, t):
        return self.base(t) + (self.jump if self.jumped(t) else 0.0)


class TraceFile:
    """One trace file cut into CPU steps, with its GPU anchors."""

    def __init__(self, path):
        self.path = path
        doc = common.load_json(path)
        self.is_list = not isinstance(doc, dict)
        self.meta = {} if self.is_list else {
            k: v for k, v in doc.items() if k != "traceEvents"}
        self.ev = doc if self.is_list else doc["traceEvents"]
        seen = {}
        for e in self.ev:
            if is_step(e):
                n = str(e["name"])
                if n not in seen:
                    seen[n] = e
        st = sorted(seen.values(), key=lambda e: float(e["ts"]))
        self.step_names = [str(e["name"]) for e in st]
        self.T = [float(e["ts"]) for e in st]
        self.gpu_rows = set()
        for e in self.ev:
            if _cat(e) in GPU_CATS and "ts" in e:
                self.gpu_rows.add((e.get("pid"), e.get("tid")))
        # launches: correlation -> runtime call start; the CPU step of it
        self.launch = {}
        for e in self.ev:
            if _cat(e) in RUNTIME_CATS and e.get("ph") == "X":
                c = corr(e)
                if c is not None:
                    self.launch[c] = float(e["ts"])
        first = [None] * len(self.T)
        first_launch = [None] * len(self.T)
        for e in self.ev:
            if _cat(e) in ACTIVITY_CATS and e.get("ph") == "X":
                t = self.launch.get(corr(e))
                if t is None:
                    continue
                k = bisect.bisect_right(self.T, t) - 1
                if 0 <= k < len(self.T):
                    ts = float(e["ts"])
                    if first[k] is None or ts < first[k]:
                        first[k] = ts
                        first_launch[k] = t
        # G_k: the first GPU activity step k launched; L_k: its launch
        self.G, self.L = [], []
        for k, t in enumerate(self.T):
            g, lt = first[k], first_launch[k]
            if g is None:
                g = t + (self.G[-1] - self.T[k - 1] if k else 0.0)
                lt = t
            if self.G and g < self.G[-1]:
                g = self.G[-1]
            self.G.append(g)
            self.L.append(min(lt, g))
        self.frag = None

    def is_gpu(self, e):
        if _cat(e) in GPU_CATS:
            return True
        return e.get("ph") in ("s", "f", "t") and \
            (e.get("pid"), e.get("tid")) in self.gpu_rows

    def fragments(self):
        """Each event's JSON text without ts/dur (cached); None for events
        written as they are."""
        if self.frag is None:
            out = []
            for e in self.ev:
                ts = e.get("ts")
                if e.get("ph") == "M" or not isinstance(ts, (int, float)):
                    out.append(None)
                    continue
                e2 = {k: v for k, v in e.items() if k not in ("ts", "dur")}
                out.append(json.dumps(e2, separators=(",", ":"))[:-1])
            self.frag = out
        return self.frag

    def times(self, factors, mode, slowdown, one=None):
        """New (ts, dur or None) of every event (None for untimed).  mode
        'one': a stall of slowdown x step one's (stretched) duration
        before step one's work."""
        n = len(self.T)
        f = factors[:n]
        jump = 0.0
        if mode == "one" and slowdown and one is not None and one < n:
            nxt = self.T[one + 1] if one + 1 < n else None
            if nxt is not None:
                jump = slowdown * (nxt - self.T[one]) * f[one]
        wc = Warp.steps(self.T, f, jump_at=one, jump=jump, strict=True)
        # the GPU timeline, a queue: anchor G_0 (the first GPU activity
        # step 0 launched) goes where the CPU step's start goes plus its
        # offset from it stretched with the step; from there each GPU
        # segment [G_k, G_k+1) (the GPU work step k launched, and any idle
        # time after it) is stretched by step k's own factor, and an
        # anchor never goes before its launch call plus the template's
        # launch latency (at most 50 us: a GPU that waited for the CPU
        # starts when the CPU launches; a queued one when the queue gets
        # there).  A uniform factor scales
        # both timelines alike around T_0.  (Anchoring every G_k at its CPU
        # step plus its lag stretched by f_k, as before, changed a GPU-side
        # step by the lag's change: on tracelens-mi300, whose GPU runs
        # 2-3 steps behind, +-2 % noise moved GPU-side steps by +-6 %.)
        # Before G_0 the CPU's warp without the stall.
        w0 = Warp.steps(self.T, f)
        gv = []
        for k in range(n):
            v = w0(self.T[k]) + (self.G[k] - self.T[k]) * f[k]
            if gv:
                v = max(gv[-1] + (self.G[k] - self.G[k - 1]) * f[k - 1],
                        w0(self.L[k]) + min(self.G[k] - self.L[k],
                                            DEP_WINDOW_US))
                if v <= gv[-1]:
                    v = gv[-1] + (self.G[k] - self.G[k - 1]) * 0.5
            gv.append(v)
        wg = Warp(self.G, gv, f[n - 1] if n else 1.0, before=w0,
                  jump_at=one, jump=jump)
        out = []
        for e in self.ev:
            ts = e.get("ts")
            if e.get("ph") == "M" or not isinstance(ts, (int, float)):
                out.append(None)
                continue
            gpu = self.is_gpu(e)
            w = wg if gpu else wc
            t0 = float(ts)
            d = e.get("dur")
            if isinstance(d, (int, float)):
                t1 = t0 + float(d)
                # a stall is idle time between GPU activities, never
                # inside one: a GPU event keeps its stretched duration
                dd = (w.base(t1) - w.base(t0)) if gpu else (w(t1) - w(t0))
                out.append((w(t0), dd))
            else:
                out.append((w(t0), None))
        if mode == "gpu" and slowdown:
            out = self.slow_gpu(out, 1.0 + slowdown)
        return out

    def slow_gpu(self, tm, factor):
        """The discrete-event replay of gpu mode over times tm."""
        ev = self.ev
        acts = []            # (start, idx) of GPU activities
        calls = []           # (end, idx) of runtime calls that may wait
        by_corr = {}
        launch_of = {}
        for i, e in enumerate(ev):
            if tm[i] is None or tm[i][1] is None:
                continue
            c = _cat(e)
            if c in ACTIVITY_CATS:
                acts.append((tm[i][0], i))
                k = corr(e)
                if k is not None:
                    by_corr.setdefault(k, []).append(i)
            elif c in RUNTIME_CATS:
                k = corr(e)
                if k is not None:
                    launch_of[k] = i
                name = str(e.get("name", ""))
                if "Synchronize" in name or "Memcpy" in name:
                    calls.append((tm[i][0] + tm[i][1], i))
        shifts = []          # (original end, cumulative CPU delay)

        def shift(t):
            k = bisect.bisect_right([s[0] for s in shifts], t) - 1 \
                if shifts else -1
            return shifts[k][1] if k >= 0 else 0.0

        new = {}             # GPU activity idx -> (start, end)
        stream_last = {}     # stream -> (orig end, new end)
        recent = {}          # device -> the last activities processed
        launched_done = []   # (launch start, orig end, idx) processed
        order = sorted([(t, 0, i) for t, i in acts]
                       + [(t, 1, i) for t, i in calls])
        for t, kind, i in order:
            e = ev[i]
            if kind == 0:
                ts, d = tm[i]
                k = corr(e)
                li = launch_of.get(k)
                earliest = ts + (shift(tm[li][0]) if li is not None else 0.0)
                s_key = (e.get("pid"), e.get("tid"))
                own_gap = None
                if s_key in stream_last:
                    pe, pn = stream_last[s_key]
                    own_gap = max(0.0, ts - pe)
                    earliest = max(earliest, pn + min(own_gap, GAP_CAP_US))
                # a wait on another stream (an event recorded there): it
                # started as another stream's activity ended, its own
                # stream idle and its launch long done
                launched_long_ago = li is None or \
                    ts - (tm[li][0] + tm[li][1]) > GAP_CAP_US
                if (own_gap is None or own_gap > GAP_CAP_US) \
                        and launched_long_ago:
                    dep = None
                    for oe, ne, sk in recent.get(e.get("pid"), ()):
                        if sk != s_key and ts - DEP_WINDOW_US <= oe <= ts \
                                and (dep is None or oe > dep[0]):
                            dep = (oe, ne)
                    if dep is not None:
                        earliest = max(earliest, dep[1] + (ts - dep[0]))
                nd = d * factor if _cat(e) == "kernel" else d
                new[i] = (earliest, earliest + nd)
                stream_last[s_key] = (ts + d, earliest + nd)
                rl = recent.setdefault(e.get("pid"), [])
                rl.append((ts + d, earliest + nd, s_key))
                if len(rl) > 64:
                    del rl[0]
                if li is not None:
                    launched_done.append((tm[li][0], ts + d, i))
            else:
                cs, cd = tm[i]
                ce = cs + cd
                name = str(e.get("name", ""))
                waited = []
                if "Synchronize" in name:
                    waited = [j for ls, oe, j in launched_done
                              if ls < cs and oe <= ce]
                else:
                    waited = [j for j in by_corr.get(corr(e), [])
                              if j in new and tm[j][0] + tm[j][1] <= ce]
                if not waited:
                    continue
                g_orig = max(tm[j][0] + tm[j][1] for j in waited)
                g_new = max(new[j][1] for j in waited)
                base = max(cs, g_orig)
                ncs = cs + shift(cs)
                nce = max(ncs, g_new) + (ce - base)
                delta = nce - (ce + shift(cs))
                if delta > 0:
                    prev = shifts[-1][1] if shifts else 0.0
                    shifts.append((ce, prev + delta))
                    shifts.sort()
        out = []
        gpu_delay = sorted((tm[i][0], new[i][0] - tm[i][0]) for i in new)
        gd_t = [x[0] for x in gpu_delay]
        for i, e in enumerate(ev):
            if tm[i] is None:
                out.append(None)
                continue
            ts, d = tm[i]
            if i in new:
                s, en = new[i]
                out.append((s, en - s))
            elif self.is_gpu(e):
                k = bisect.bisect_right(gd_t, ts) - 1
                dl = gpu_delay[k][1] if k >= 0 else 0.0
                out.append((ts + dl, d))
            else:
                s = ts + shift(ts)
                out.append((s, None if d is None
                            else ts + d + shift(ts + d) - s))
        return out

    def write(self, path, factors, mode, slowdown, one=None, tag=None):
        """tag: the trace's traceName (two scenarios with the same events
        are still two files: profan skips a file it has by content)."""
        frags = self.fragments()
        tm = self.times(factors, mode, slowdown, one)
        parts = []
        for i, e in enumerate(self.ev):
            if frags[i] is None:
                parts.append(json.dumps(e, separators=(",", ":")))
                continue
            ts, d = tm[i]
            if d is None:
                parts.append('%s,"ts":%.3f}' % (frags[i], ts))
            else:
                parts.append('%s,"ts":%.3f,"dur":%.3f}'
                             % (frags[i], ts, max(d, 0.0)))
        with open(path, "w") as fh:
            if self.is_list:
                fh.write("[\n" + ",\n".join(parts) + "]\n")
            else:
                meta = dict(self.meta)
                if tag:
                    meta["traceName"] = tag
                head = json.dumps(meta, separators=(",", ":"))[:-1]
                fh.write(head + (',' if self.meta else '')
                         + '"traceEvents":[\n' + ",\n".join(parts) + "]}\n")


class Template:
    """A template: one trace file, or a run directory of rank files (each
    replayed with the same factors per step position)."""

    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path.rstrip("/"))
        if os.path.isdir(path):
            self.files = [TraceFile(p) for p in sorted(
                glob.glob(os.path.join(path, "*.json*")))]
        else:
            self.files = [TraceFile(path)]
        self.steps = min(len(f.T) for f in self.files)
        self.one_step = (self.steps - 1) // 2

    def write(self, out, factors, mode="uniform", slowdown=0.0):
        """Write the scenario to out (a file, or a directory for a run
        directory); returns the path to ingest."""
        if mode == "uniform":
            factors = [f * (1 + slowdown) for f in factors]
        tag = os.path.basename(out)
        if len(self.files) == 1 and not os.path.isdir(self.path):
            self.files[0].write(out, factors, mode, slowdown, self.one_step,
                                tag)
            return out
        os.makedirs(out, exist_ok=True)
        for f in self.files:
            name = os.path.basename(f.path)
            if name.endswith(".gz"):
                name = name[:-3]
            f.write(os.path.join(out, name), factors, mode, slowdown,
                    self.one_step, tag)
        return out

    def copy(self, out):
        """The template's bytes, decompressed (gzip -dc), at out."""
        def dc(src, dst):
            op = gzip.open if src.endswith(".gz") else open
            with op(src, "rb") as a, open(dst, "wb") as b:
                shutil.copyfileobj(a, b)
        if os.path.isdir(self.path):
            os.makedirs(out, exist_ok=True)
            for f in self.files:
                n = os.path.basename(f.path)
                dc(f.path, os.path.join(out, n[:-3] if n.endswith(".gz")
                                        else n))
            return out
        dc(self.path, out)
        return out


def bound_steps(events):
    """The step time that bounds the work, computed here from a trace's
    events (the oracle of step.bound_*; schema 040 and 092, sections of
    schema/001-baseline.sql, have the definition): [(step name, start, dur, by), ...] in time
    order, µs.
    CPU steps: the first ProfilerStep range of each name; the GPU work of
    a step: the activities whose launch call (same correlation) starts
    inside the step's range."""
    seen = {}
    for e in events:
        if is_step(e) and str(e["name"]) not in seen:
            seen[str(e["name"])] = e
    st = sorted(seen.values(), key=lambda e: (float(e["ts"]), e["name"]))
    cs = [float(e["ts"]) for e in st]
    es = [float(e["ts"]) + float(e["dur"]) for e in st]
    launch = {}
    for e in events:
        if _cat(e) in RUNTIME_CATS and e.get("ph") == "X" and \
                corr(e) is not None:
            launch[corr(e)] = float(e["ts"])
    g0 = [None] * len(st)
    g1 = [None] * len(st)
    for e in events:
        if _cat(e) not in ACTIVITY_CATS or e.get("ph") != "X":
            continue
        t = launch.get(corr(e))
        if t is None:
            continue
        # the step whose range holds the launch (ranges do not overlap)
        k = bisect.bisect_right(cs, t) - 1
        if k < 0 or t >= es[k]:
            continue
        a, b = float(e["ts"]), float(e["ts"]) + float(e["dur"])
        g0[k] = a if g0[k] is None else min(g0[k], a)
        g1[k] = b if g1[k] is None else max(g1[k], b)
    out, end_prev = [], None
    for k, e in enumerate(st):
        end = max(es[k], g1[k]) if g1[k] is not None else es[k]
        if k == 0:
            start = g0[k] if g0[k] is not None and g0[k] >= es[k] else cs[k]
        else:
            end = max(end, end_prev)
            start = max(cs[k], end_prev)
        end_prev = end
        # equal to the ns (ts + dur in float µs: 5001705.911 + 1738.769
        # is 5003444.680000001, sample-run host_4000's step 12)
        by = "cpu" if round(start * 1e3) == round(cs[k] * 1e3) and \
            round(end * 1e3) == round(es[k] * 1e3) else "gpu"
        out.append((str(e["name"]), start, end - start, by))
    return out


def steady_reasons(durs, tol_pct=20.0, min_steps=3):
    """The steady-step rule of schema/040 over one rank's step times in
    time order: '' (steady), 'warm-up' or 'cut' per step."""
    n = len(durs)
    if n < min_steps:
        return [""] * n
    srt = sorted(durs)
    med = (srt[(n - 1) // 2] + srt[n // 2]) / 2.0
    ok = [100.0 * abs(d - med) / max(med, 1e-9) <= tol_pct for d in durs]
    k0 = ok.index(True) if True in ok else 0
    out = []
    for k in range(n):
        if k < k0 and k + 1 <= (n - 1) // 2:
            out.append("warm-up")
        elif k == n - 1 and not ok[k]:
            out.append("cut")
        else:
            out.append("")
    return out


def steady_median_ms(events):
    """step_time_median_ms of a one-rank trace, computed here: the median
    of the steady steps' bounded step times (bound_steps, steady_reasons),
    ms."""
    durs = [d for _, _, d, _ in bound_steps(events)]
    st = [d for d, r in zip(durs, steady_reasons(durs)) if r == ""]
    st.sort()
    n = len(st)
    return (st[(n - 1) // 2] + st[n // 2]) / 2.0 / 1e3


def step_comm(events, is_comm):
    """The oracle of step_comm (schema/053): per step of a one-rank trace,
    in time order, (exposed_ns, comm_ns, dur_ns, steady): the union of its
    communication kernels (is_comm(name)) and their part with no other
    kernel of the same device running, over the rank's devices, clipped
    to the step's window (bound_steps), and whether the step is steady
    (steady_reasons)."""
    from trace_reference import kind_of, span, merge, intersect_ns
    dev = {}
    for e in events:
        if kind_of(e) == "kernel" and isinstance(e.get("ts"), (int, float)):
            dev.setdefault(e.get("pid"), []).append(e)
    comm_iv, exp_iv = [], []
    for ks in dev.values():
        c = merge([span(e) for e in ks if is_comm(e.get("name", ""))])
        k = merge([span(e) for e in ks if not is_comm(e.get("name", ""))])
        comm_iv += c
        j = 0
        for b, e in c:              # c minus k
            while j < len(k) and k[j][1] <= b:
                j += 1
            i = j
            while i < len(k) and k[i][0] < e:
                if k[i][0] > b:
                    exp_iv.append((b, k[i][0]))
                b = max(b, k[i][1])
                i += 1
            if b < e:
                exp_iv.append((b, e))
    comm_iv, exp_iv = merge(comm_iv), merge(exp_iv)
    steps = bound_steps(events)
    durs = [d for _, _, d, _ in steps]
    out = []
    for (_, st, d, _), r in zip(steps, steady_reasons(durs)):
        w = [(round(st * 1e3), round((st + d) * 1e3))]
        out.append((intersect_ns(exp_iv, w), intersect_ns(comm_iv, w),
                    d * 1e3, r == ""))
    return out


def scale_snapshot(src, dst, factor):
    """A memory snapshot whose sizes are those of src x factor (segments,
    blocks, trace entries, rounded to bytes), written as a plain pickle:
    its peak allocated memory is src's x factor up to the rounding
    (snapshot_reference.py computes the exact one).  src is decoded by
    snapshot_reference's safe decoder, never pickle.load."""
    import pickle
    import snapshot_reference as sr
    with open(src, "rb") as fh:
        doc = sr.decode(fh.read())

    def sc(d, keys):
        for k in keys:
            if isinstance(d.get(k), int) and not isinstance(d.get(k), bool):
                d[k] = int(round(d[k] * factor))
    segs = doc.get("segments", []) if isinstance(doc, dict) else doc
    for seg in segs:
        blocks = seg.get("blocks", []) or []
        whole = sum(b.get("size", 0) for b in blocks) == seg.get("total_size")
        sc(seg, ("total_size", "allocated_size", "active_size",
                 "requested_size"))
        for b in blocks:
            sc(b, ("size", "requested_size"))
            for h in b.get("history", []) or []:
                if isinstance(h, dict):
                    sc(h, ("real_size",))
        if whole and blocks:             # blocks still add up to the segment
            seg["total_size"] = sum(b.get("size", 0) for b in blocks)
    if isinstance(doc, dict):
        for tr in doc.get("device_traces", []) or []:
            for e in tr or []:
                if isinstance(e, dict):
                    sc(e, ("size",))
    with open(dst, "wb") as fh:
        pickle.dump(doc, fh, protocol=4)
    return dst


def draws(rnd, steps, noise):
    return [1 + rnd.uniform(-noise, noise) for _ in range(steps)]


def discover():
    """Every multi-step trace of ../shared/fixtures and fixtures/: files
    and run directories with 2 or more ProfilerSteps per file."""
    roots = [common.SHARED, os.path.join(common.ROOT, "fixtures")]
    cands = []
    for r in roots:
        for p in sorted(glob.glob(os.path.join(r, "**", "*.json*"),
                                  recursive=True)):
            cands.append(p)
    out, dirs = [], {}
    for p in cands:
        d = os.path.dirname(p)
        try:
            tf = TraceFile(p)
        except Exception:
            continue
        if len(tf.T) < 2:
            continue
        if d.rstrip("/").endswith(("sample-run",)) or \
                os.path.basename(os.path.dirname(p)) in ("runs",):
            dirs.setdefault(d, []).append(p)
        else:
            out.append(p)
    return out + sorted(dirs)


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
    """A database holding the unrelated fixtures (made once, copied)."""
    path = os.path.join(workdir, "unrelated.db")
    if not os.path.exists(path):
        for i, parts in enumerate(UNRELATED):
            ingest(path, common.shared(*parts), "unrelated%d" % i)
    return path


def truth(fa, fb, mode, slowdown, one):
    """The realized shift of a family's run, from the draws: the median of
    the per-step log ratios, as %."""
    r = []
    for k, (a, b) in enumerate(zip(fa, fb)):
        s = slowdown if mode == "uniform" or (mode == "one" and k == one) \
            else 0.0
        r.append((1 + s) * b / a)
    r.sort()
    m = len(r)
    med = r[m // 2] if m % 2 else (r[m // 2 - 1] + r[m // 2]) / 2
    return 100 * (med - 1)


def run_family(tpl, workdir, noise, seed, slowdowns, modes, unrelated,
               copy=True):
    """One family: returns {(mode, slowdown, unrelated): class} plus
    ("copy", 0, unrelated) for the identical copy, and the JSON rows."""
    rnd = random.Random("%s/%g/%d" % (tpl.name, noise, seed))
    fa = draws(rnd, tpl.steps, noise)
    fb = draws(rnd, tpl.steps, noise)
    tag = "%s-n%g-s%d" % (tpl.name.split(".")[0], noise, seed)
    fam = tempfile.mkdtemp(prefix=tag + "-", dir=workdir)
    ext = "" if os.path.isdir(tpl.path) else ".json"
    files = [("base", tpl.write(os.path.join(fam, "base" + ext), fa))]
    runs = []
    for m in modes:
        for s in slowdowns:
            if s == 0 and m != modes[0]:
                continue        # the unchanged run is the same in every mode
            name = "run-%s-%g" % (m, s)
            files.append((name, tpl.write(os.path.join(fam, name + ext), fb,
                                          m, s / 100.0)))
            runs.append((m, s, name))
    if copy:
        files.append(("tpl", tpl.path))
        files.append(("copy", tpl.copy(os.path.join(fam, "copy" + ext))))
    out, rows = {}, {}
    for unrel in ([False, True] if unrelated else [False]):
        db = os.path.join(fam, "u.db" if unrel else "clean.db")
        if unrel:
            shutil.copy(unrelated_db(workdir), db)
        for name, p in files:
            ingest(db, p, name)
        for m, s, name in runs:
            cls, rc, o, err = check(db, name, "base")
            for mm in (modes if s == 0 else [m]):
                out[(mm, s, unrel)] = cls
            rows[(m, s, unrel)] = (o, err)
        if copy:
            out[("copy", 0, unrel)] = check(db, "copy", "tpl")[0]
    shutil.rmtree(fam, ignore_errors=True)
    return out, rows, (fa, fb)


def matrix(templates, noise_list, slowdowns, seeds, modes=MODES, jobs=2,
           workdir=None, progress=None, unrelated_seeds=0,
           unrelated_templates=None):
    """Every family of the grid; returns {(template, noise, seed, mode,
    slowdown, unrelated): class}.  Without noise every seed gives the
    same traces: seed 0 runs and stands for all of them.  The first
    unrelated_seeds seeds of a cell (of the templates named in
    unrelated_templates, None: every one) also run in a database holding
    the unrelated fixtures."""
    own = workdir is None
    workdir = workdir or tempfile.mkdtemp(prefix="gate-scen-")
    if unrelated_seeds:
        unrelated_db(workdir)
    res = {}
    jobs_l = [(t, nz, sd) for sd in range(seeds) for t in templates
              for nz in noise_list if nz or sd == 0]

    def one(job):
        t, nz, sd = job
        unrel = sd < unrelated_seeds and (unrelated_templates is None
                                          or t.name in unrelated_templates)
        out, _, dr = run_family(t, workdir, nz / 100.0, sd, slowdowns,
                                modes, unrel, copy=nz == 0 or sd == 0)
        return job, out, dr
    try:
        with ThreadPoolExecutor(max_workers=jobs) as ex:
            for (t, nz, sd), out, dr in ex.map(one, jobs_l):
                for (m, s, unrel), cls in out.items():
                    for sd2 in ([sd] if nz else range(seeds)):
                        res[(t.name, nz, sd2, m, s, unrel)] = cls
                if progress:
                    progress(t, nz, sd, out, dr)
    finally:
        if own:
            shutil.rmtree(workdir, ignore_errors=True)
    return res


def cell(res, **kw):
    """Counts regression / inconclusive / ok of the clean-database keys
    matching kw (template, noise, mode, slowdown)."""
    c = {"regression": 0, "inconclusive": 0, "ok": 0, "other": 0}
    names = ("template", "noise", "seed", "mode", "slowdown", "unrelated")
    for k, v in res.items():
        d = dict(zip(names, k))
        if d["unrelated"] or any(d[n] != x for n, x in kw.items()):
            continue
        c[v if v in c else "other"] += 1
    return c


def table(res, templates, noise_list, slowdowns, modes=MODES):
    """Markdown: per template, mode and noise, for each slowdown the
    counts regression / inconclusive / ok over the seeds (clean
    databases); the copy column: the identical copy's verdicts; the last
    column: verdicts changed by unrelated runs (of those compared)."""
    hdr = ("| template | steps | mode | noise ± | " + " | ".join(
        "+%g %%" % s for s in slowdowns) + " | copy | changed by unrelated |")
    lines = [hdr, "|---|---|---|---|" + "---|" * len(slowdowns) + "---|---|"]
    for t in templates:
        for m in modes:
            for nz in noise_list:
                cells = []
                for s in slowdowns:
                    c = cell(res, template=t.name, noise=nz, mode=m,
                             slowdown=s)
                    txt = "%d / %d / %d" % (c["regression"],
                                            c["inconclusive"], c["ok"])
                    if c["other"]:
                        txt += " (+%d other)" % c["other"]
                    cells.append(txt)
                cp = cell(res, template=t.name, noise=nz, mode="copy")
                flips = compared = 0
                for k, v in res.items():
                    if k[0] == t.name and k[1] == nz and k[3] == m \
                            and not k[5]:
                        u = k[:5] + (True,)
                        if u in res:
                            compared += 1
                            flips += res[u] != v
                lines.append("| %s | %d | %s | %g %% | %s | %s | %d of %d |"
                             % (t.name, t.steps, m, nz, " | ".join(cells),
                                "%d of %d ok" % (cp["ok"], sum(cp.values())),
                                flips, compared))
    return "\n".join(lines)


def rates_table(res, noise_list, slowdowns, modes=MODES, gpu_bound=None):
    """Markdown for the README: per mode and noise, for each slowdown the
    share of checks flagged (exit 1 or 5) and, in parentheses, called a
    regression (exit 1), over every template and seed (clean databases;
    a noise-free family counts once: its seeds are the same traces);
    the identical copy's row; with gpu_bound, gpu mode again over the
    GPU-bound templates only."""
    def pct(sel):
        ks = [k for k in res if not k[5] and (k[1] or not k[2]) and sel(k)]
        if not ks:
            return "n/a"
        f = sum(res[k] in ("regression", "inconclusive") for k in ks)
        r = sum(res[k] == "regression" for k in ks)
        return "%.0f %% (%.0f %%) of %d" % (100.0 * f / len(ks),
                                            100.0 * r / len(ks), len(ks))
    rows = [(m, m, None) for m in modes]
    if gpu_bound is not None and "gpu" in modes:
        rows.append(("gpu", "gpu, GPU-bound traces", set(gpu_bound)))
    hdr = ("| change | noise ± | "
           + " | ".join("+%g %%" % s for s in slowdowns) + " |")
    lines = [hdr, "|---|---|" + "---|" * len(slowdowns)]
    for m, label, only in rows:
        for nz in noise_list:
            cells = [pct(lambda k: k[3] == m and k[1] == nz and k[4] == s
                         and (only is None or k[0] in only))
                     for s in slowdowns]
            lines.append("| %s | %g %% | %s |"
                         % (label, nz, " | ".join(cells)))
    for nz in noise_list:
        lines.append("| identical copy | %g %% | %s |%s" % (
            nz, pct(lambda k: k[3] == "copy" and k[1] == nz),
            " |" * (len(slowdowns) - 1)))
    return "\n".join(lines)


def load_jsonl(path, seeds):
    """The verdicts a run wrote with --jsonl, as matrix() returns them
    (a noise-free family stands for every seed)."""
    res = {}
    with open(path) as fh:
        for line in fh:
            t, nz, sd, m, s, unrel, cls = json.loads(line)
            for sd2 in ([sd] if nz else range(seeds)):
                res[(t, nz, sd2, m, s, unrel)] = cls
    return res


def gpu_effect(tpl, workdir, slowdown=0.10):
    """How much the GPU-only change moves the template's step time, %:
    the sum over every rank's steps of the bounded step time (bound_steps,
    computed here) of the noise-free gpu replay over that of the
    unchanged one (a sum, not a median of ratios: a 4 us step that got
    0.5 us longer next to a 117 ms one is no slower run).  GPU-bound
    templates are those it moves by the threshold (5 %) or more at
    +10 %."""
    ext = "" if os.path.isdir(tpl.path) else ".json"
    ones = [1.0] * tpl.steps
    a = tpl.write(os.path.join(workdir, "gpu-effect-base" + ext), ones)
    b = tpl.write(os.path.join(workdir, "gpu-effect-run" + ext), ones, "gpu",
                  slowdown)
    pa = sorted(glob.glob(os.path.join(a, "*.json"))) if ext == "" else [a]
    pb = sorted(glob.glob(os.path.join(b, "*.json"))) if ext == "" else [b]
    t0 = t1 = 0.0
    for x, y in zip(pa, pb):
        for s0, s1 in zip(bound_steps(common.events(x)),
                          bound_steps(common.events(y))):
            t0 += s0[2]
            t1 += s1[2]
    for p in (a, b):
        shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
    return 100 * (t1 / t0 - 1) if t0 > 0 else None


def summary(res, templates, noise_list, slowdowns, gpu_bound=()):
    """The issue's targets, measured: a list of (target, value, met).  A
    noise-free family counts once (its seeds are the same traces)."""
    def rate(sel):
        ks = [k for k in res if not k[5] and (k[1] or not k[2]) and sel(k)]
        if not ks:
            return None, 0
        f = sum(res[k] in ("regression", "inconclusive") for k in ks)
        return 100.0 * f / len(ks), len(ks)
    out = []
    r, n = rate(lambda k: k[4] == 0 and k[3] == "uniform" and k[1] <= 2)
    out.append(("unchanged flagged, noise <= 2 % (<= 5 %)", r, n,
                r is not None and r <= 5))
    r, n = rate(lambda k: k[3] == "copy")
    out.append(("identical copy flagged (0 %)", r, n,
                r is not None and r == 0))
    r, n = rate(lambda k: k[3] == "uniform" and k[4] >= 5)
    out.append(("uniform >= 5 % flagged (>= 95 %)", r, n,
                r is not None and r >= 95))
    for nz in noise_list:
        r, n = rate(lambda k: k[3] == "uniform" and k[4] >= 5 and k[1] == nz)
        out.append(("  at noise %g %%" % nz, r, n, True))
    r, n = rate(lambda k: k[3] == "gpu" and k[4] == 10 and k[0] in gpu_bound)
    out.append(("gpu +10 % on GPU-bound traces flagged (all)", r, n,
                r is not None and r == 100))
    for nz in noise_list:
        r, n = rate(lambda k: k[3] == "gpu" and k[4] == 10 and k[1] == nz
                    and k[0] in gpu_bound)
        out.append(("  at noise %g %%" % nz, r, n, True))
    return out


def monotonic_breaks(res):
    """Families (template, noise, seed, mode, unrelated) whose verdict
    passes a slowdown after failing a smaller one."""
    rank = {"ok": 0, "inconclusive": 1, "regression": 1}
    fam = {}
    for k, v in res.items():
        if k[3] == "copy":
            continue
        fam.setdefault((k[0], k[1], k[2], k[3], k[5]), []).append((k[4], v))
    bad = []
    for f, lst in fam.items():
        lst.sort()
        flagged = False
        for s, v in lst:
            if flagged and rank.get(v, 1) == 0:
                bad.append((f, lst))
                break
            flagged = flagged or rank.get(v, 1) == 1
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profan", default=common.PROFAN)
    ap.add_argument("--templates", default="all",
                    help="'all' (every multi-step trace), 'ci', or paths")
    ap.add_argument("--noise", default="0,2,5", help="± %% per step")
    ap.add_argument("--slowdown", default="0,2,5,10,20", help="%%")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--unrelated-seeds", type=int, default=2,
                    help="the first N seeds also with unrelated runs")
    ap.add_argument("--jsonl", help="append each family's verdicts here")
    ap.add_argument("--from-jsonl", help="print the tables of the verdicts "
                    "a run wrote with --jsonl (of the templates given), run "
                    "nothing")
    a = ap.parse_args()
    common.PROFAN = os.path.abspath(a.profan)
    if a.templates == "all":
        paths = discover()
    elif a.templates == "ci":
        paths = [common.shared(*p) for p in CI_TEMPLATES]
    else:
        paths = a.templates.split(",")
    t0 = time.time()
    tpls = [Template(p) for p in paths]
    noise = [float(x) for x in a.noise.split(",")]
    slow = [float(x) for x in a.slowdown.split(",")]
    modes = tuple(a.modes.split(","))

    def progress(t, nz, sd, out, dr):
        print("%s noise %g seed %d done (%.0f s)" % (t.name, nz, sd,
                                                     time.time() - t0),
              file=sys.stderr, flush=True)
        if a.jsonl:
            with open(a.jsonl, "a") as fh:
                for (m, s, unrel), cls in out.items():
                    fh.write(json.dumps([t.name, nz, sd, m, s, unrel, cls])
                             + "\n")
    work = tempfile.mkdtemp(prefix="gate-effect-")
    effect = {t.name: gpu_effect(t, work) for t in tpls}
    shutil.rmtree(work, ignore_errors=True)
    gpu_bound = [n for n, e in effect.items() if e is not None and e >= 5]
    if a.from_jsonl:
        names = {t.name for t in tpls}
        res = {k: v for k, v in load_jsonl(a.from_jsonl, a.seeds).items()
               if k[0] in names and k[1] in noise and k[2] < a.seeds}
    else:
        res = matrix(tpls, noise, slow, a.seeds, modes, a.jobs,
                     progress=progress, unrelated_seeds=a.unrelated_seeds)
    print("regression / inconclusive / ok out of %d seeds per cell (clean "
          "database; without noise one family stands for every seed)\n"
          % a.seeds)
    print(table(res, tpls, noise, slow, modes))
    print("\nflagged (exit 1 or 5), in parentheses regression (exit 1), of "
          "the checks of every template and seed (clean database; without "
          "noise one check a template):\n")
    print(rates_table(res, noise, slow, modes, gpu_bound))
    print("\nGPU-only +10 %, noise-free, moves the summed step time (Python,"
          " bound_steps): " + ", ".join(
              "%s %s" % (n, "n/a" if e is None else "%+.1f %%" % e)
              for n, e in effect.items()))
    print("GPU-bound (>= 5 %): " + (", ".join(gpu_bound) or "none") + "\n")
    for what, r, n, met in summary(res, tpls, noise, slow, gpu_bound):
        print("- %s: %s of %d checks%s" % (
            what, "n/a" if r is None else "%.1f %%" % r, n,
            "" if met else "  (TARGET MISSED)"))
    br = monotonic_breaks(res)
    print("- families not monotonic in the slowdown: %d" % len(br))
    for f, lst in br[:20]:
        print("  %s: %s" % (f, lst))
    print("\n%.0f s" % (time.time() - t0))
    bad = sorted(set(v for v in res.values()
                     if v not in ("ok", "regression", "inconclusive")))
    if bad:
        print("\nunexpected exit codes: %s" % ", ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
