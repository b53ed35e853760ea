"""findings_scenarios.py — detection and false-alarm rates of issue 31's
findings on real inputs changed by a known amount (the straggler has its
own matrix: straggler_matrix.py).

A trace scenario replays a real trace of ../shared/fixtures/traces with
one class of GPU activity (memcpy/memset, fill kernels, kernels shorter
than 10 us, communication kernels, or all GPU work) running F times as
long: stretched, each later GPU event of the device moved by the time the
stretched ones before it added (the CPU side stays: the GPU lags more),
or shortened in place for F < 1 (the GPU idles where it ran).  Everything
else of the real trace (warm-up, stalls, lag) stays.  A snapshot scenario
takes a real snapshot with its K largest live segments emptied (cached
but unused) or a share P of each segment's largest live block freed (a
hole inside a live segment).  An NCCL scenario adds N `NCCL WARN` lines
to a real log.

Four more kinds change what a single rule judges (issue 31's
step-variation, optimizer, copy-ops and top-category had one example
each), each over several real traces and seeds:
  - a stall: the process pauses D (a share of the recorded median step)
    at a seeded point inside a seeded step (step-variation) or inside a
    seeded set of the Optimizer.step ranges (optimizer); CPU events after
    the point move by D, those spanning it last D longer, GPU work moves
    with its launch call (work queued before the stall runs on);
  - the conversion kernels of aten::copy_/to/_to_copy (a seeded subset)
    stretched by F in COPY_FACTORS (copy-ops: they are 1.2-3.3 % of GPU
    time in the real traces that have them);
  - the kernels of one detailed category (the seed picks the largest,
    second or third that top-category may name) stretched by F
    (top-category).

Every rule graded here is graded on every scenario: the truth is
recomputed from the changed input by the corpus test's oracles
(test_findings_corpus: trace JSON, the snapshot reference decoder, the
log text), the expected verdict from the documented thresholds, and
profan's findings are compared with it: present or not, the value, the
severity and, for gpu-utilization, which hint.  A value within 0.05 of
its threshold is not graded (rounding).

    python3 tests/e2e/findings_scenarios.py build/profan [--seed S]
                                            [--n N [--rest=1]]
                                            [--rule R,R..] [--only R,R..]
                                            [--skip TRACE] [--factors F,F..]

prints the table of the README (every scenario, or N of them drawn with
seed S, or all but those N: the counts of two runs add up); --rule R
only the scenarios that change R's class, --only R grades only rule R
(each oracle costs time), --skip T leaves out trace T's scenarios,
--factors other stretch factors than FACTORS.
It exits 1 when a verdict disagrees or a rule of TARGETS misses its
rates.
CI runs a seeded handful (test_findings_rates.py)."""
import bisect
import copy
import json
import os
import pickle
import random
import sqlite3
import sys
import tempfile

import common
import gate_scenarios as gs
import snapshot_reference as sref
import test_findings_corpus as corp
from test_report import copy_kernels
from trace_reference import kind_of, span

GPU = ("kernel", "memcpy", "memset")
TRACES = ("hta-alexnet-a100.json.gz", "hta-diff-control-a100-rank3.json.gz",
          "hta-mi250-rocm62.json.gz", "hta-triton.json.gz",
          "kineto-h100-2026-before.json",
          "kineto-resnet50-2021.pt.trace.json.gz",
          "param-linear-2080ti.json.gz", "tracelens-b200-vllm-rank0.json.gz",
          "tracelens-mi300-resnet-ckpt.json.gz")
FACTORS = (0.2, 0.5, 2.0, 5.0)
SNAPSHOTS = ("segment-list-only.pkl", "tomi-small.pickle",
             "llm-inference-torch20-history.pickle")
EMPTIED = (1, 5, 20, 60)
HOLES = (0.02, 0.1, 0.3, 0.6)
WARNS = (0, 1, 4)
MARGIN = 0.05
SEEDS = (1, 2, 3)
# stalls, as a share of the recorded median CPU step
STALLS = (0.02, 0.1, 0.3, 1.0)
# real traces with what each kind changes (3+ ProfilerSteps; Optimizer.step
# ranges; copy kernels; categories top-category may name)
STEP_TRACES = ("tracelens-mi300-resnet-ckpt.json.gz",
               "kineto-resnet50-2021.pt.trace.json.gz",
               "kineto-resnet50-2021-workers4.pt.trace.json.gz",
               "hta-diff-test-v100-rank1.json.gz",
               "hta-diff-control-a100-rank3.json.gz")
OPT_TRACES = ("hta-mi250-rocm62.json.gz", "hta-no-rank.json.gz",
              "tracelens-mi300-resnet-ckpt.json.gz",
              "kineto-resnet50-2021.pt.trace.json.gz",
              "hta-diff-test-v100-rank1.json.gz",
              "param-linear-2080ti.json.gz")
COPY_TRACES = ("tracelens-b200-vllm-rank0.json.gz",
               "hta-diff-test-v100-rank1.json.gz",
               "hta-diff-control-a100-rank3.json.gz")
# their copy kernels are 1.2-3.3 % of GPU time: stretched up to 20 times
COPY_FACTORS = (0.5, 2.0, 5.0, 10.0, 20.0)
TOP_TRACES = ("hta-compare-base.json.gz", "hta-compare-test.json.gz",
              "hta-alexnet-a100.json.gz", "hta-mi250-rocm62.json.gz",
              "hta-triton.json.gz", "tracelens-mi300-resnet-ckpt.json.gz",
              "kineto-resnet50-2021.pt.trace.json.gz",
              "param-linear-2080ti.json.gz",
              "tracelens-b200-vllm-rank0.json.gz")
# alexnet's GEMM time is 7.7 % of its GPU time: up to 10 times
TOP_FACTORS = (0.2, 0.5, 2.0, 5.0, 10.0)
# the rates each rule must reach on the whole set (detection at least,
# false alarms at most); the seeded CI draw must agree everywhere
TARGETS = {"step-variation": (0.95, 0.05), "optimizer": (0.95, 0.05),
           "copy-ops": (0.95, 0.05), "top-category": (0.95, 0.05)}
LIVE = ("active_allocated", "active_pending_free")


def is_fill(e):
    n = e.get("name", "").lower()
    return kind_of(e) == "kernel" and ("fill" in n or "zero" in n)


def is_tiny(e):
    return kind_of(e) == "kernel" and span(e)[1] - span(e)[0] < 10000


# the rules that judge GPU time (none without GPU work)
GPU_RULES = ("memory-ops", "fill-kernels", "tiny-kernels", "gpu-utilization",
             "exposed-comm", "copy-ops", "top-category")
# the class a scenario changes, by the rule it is meant to move
CLASSES = {
    "memory-ops": lambda e: kind_of(e) in ("memcpy", "memset"),
    "fill-kernels": is_fill,
    "tiny-kernels": is_tiny,
    "exposed-comm": lambda e: kind_of(e) == "kernel"
    and corp.is_comm(e.get("name", "")),
    "gpu-utilization": lambda e: True,
}


def has_ts(e):
    return isinstance(e.get("ts"), (int, float))


def stretch(doc, pick, f):
    """A copy of doc with the picked GPU events F times as long (see the
    module comment)."""
    doc = copy.deepcopy(doc)
    dev = {}
    for e in doc["traceEvents"]:
        if kind_of(e) in GPU and has_ts(e):
            dev.setdefault(e.get("pid"), []).append(e)
    for es in dev.values():
        picked = [e for e in es if pick(e)]
        if f <= 1:
            for e in picked:
                e["dur"] = round(e.get("dur", 0) * f, 3)
            continue
        added = sorted((e["ts"] + e.get("dur", 0), (f - 1) * e.get("dur", 0))
                       for e in picked)
        ends, cum = [a for a, _ in added], [0.0]
        for _, x in added:
            cum.append(cum[-1] + x)
        ids = {id(e) for e in picked}
        for e in es:
            sh = cum[bisect.bisect_right(ends, e["ts"])]
            if id(e) in ids:
                e["dur"] = round(e.get("dur", 0) * f, 3)
            e["ts"] = round(e["ts"] + sh, 3)
    return doc


def stall(doc, points, d):
    """A copy of doc with the process paused d us at each time of points
    (us): a CPU-side event moves by d for each point at or before its
    start and lasts d longer for each point inside it; a GPU activity (and
    the flow arrow to it) moves with its launch call, by the points at or
    before the call's start (work queued before a stall runs on), one
    without a launch call by its own start."""
    doc = copy.deepcopy(doc)
    pts = sorted(points)
    launch = {}
    for e in doc["traceEvents"]:
        if kind_of(e) == "runtime" and has_ts(e) and gs.corr(e) is not None:
            launch[gs.corr(e)] = e["ts"]
    for e in doc["traceEvents"]:
        if not has_ts(e):
            continue
        ts = e["ts"]
        if kind_of(e) in GPU:
            t0 = launch.get(gs.corr(e), ts)
        elif e.get("ph") == "f":
            t0 = launch.get(e.get("id"), ts)
        else:
            t0 = ts
        n0 = bisect.bisect_right(pts, t0)
        if e.get("ph") == "X" and kind_of(e) not in GPU:
            end = ts + e.get("dur", 0)
            inside = bisect.bisect_left(pts, end) - bisect.bisect_right(
                pts, ts)
            if inside > 0:
                e["dur"] = round(e.get("dur", 0) + d * inside, 3)
        e["ts"] = round(ts + d * n0, 3)
    return doc


def profiler_steps(doc):
    """[(ts, dur)] us of the ProfilerStep ranges (first of each name), in
    time order."""
    seen = {}
    for e in doc["traceEvents"]:
        if gs.is_step(e) and has_ts(e) and e["name"] not in seen:
            seen[e["name"]] = (e["ts"], e.get("dur", 0))
    return sorted(seen.values())


def median(v):
    v = sorted(v)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2.0


def optimizer_ranges(doc):
    """[(ts, dur)] of the outermost Optimizer.step* ranges."""
    r = sorted((e["ts"], e.get("dur", 0)) for e in doc["traceEvents"]
               if e.get("ph") == "X" and has_ts(e)
               and kind_of(e) in ("user_annotation", "cpu_op")
               and str(e.get("name", "")).startswith("Optimizer.step"))
    out = []
    for ts, d in r:
        if out and ts + d <= out[-1][0] + out[-1][1]:
            continue
        out.append((ts, d))
    return out


def key(e):
    return (e.get("pid"), e.get("tid"), e.get("ts"), e.get("name"),
            e.get("dur"))


_RULES = []


def category_rules():
    """(pattern, category) of the detailed scheme by priority, the default
    category and the owned ones, from a new profan database."""
    if not _RULES:
        with tempfile.TemporaryDirectory() as tmp:
            db = os.path.join(tmp, "c.db")
            # the rows profan ships: any database has them
            r = common.run("ingest", common.shared(
                "traces", "hta-compare-base.json.gz"), db=db)
            assert r.rc == 0, r.err
            con = sqlite3.connect(db)
            _RULES.append(con.execute(
                "SELECT pattern, category FROM category_rule WHERE scheme ="
                " 'detailed' ORDER BY priority").fetchall())
            _RULES.append(con.execute(
                "SELECT default_category FROM category_scheme WHERE scheme"
                " = 'detailed'").fetchone()[0])
            _RULES.append({x[0] for x in con.execute(
                "SELECT category FROM category_owner WHERE scheme ="
                " 'detailed'")})
            con.close()
    return _RULES


def category_of(e):
    rules, default, _ = category_rules()
    n = e.get("name", "")
    if kind_of(e) == "kernel" and corp.is_comm(n):
        return "NCCL / communication"
    return next((c for p, c in rules if p.lower() in n.lower()), default)


def eligible_categories(doc):
    """The detailed categories top-category may name, largest GPU time
    first."""
    _, default, owned = category_rules()
    ns = {}
    for e in doc["traceEvents"]:
        if kind_of(e) in GPU and has_ts(e):
            c = category_of(e)
            ns[c] = ns.get(c, 0) + e.get("dur", 0)
    return sorted((c for c in ns if c != default and c not in owned),
                  key=lambda c: (-ns[c], c))


def step_variation_of(t):
    """step-variation's value from the trace: per rank, the coefficient of
    variation of the steady steps' bounded times (gate_scenarios'
    bound_steps and steady rule), the largest over ranks; None when no rank
    has 3 steady steps."""
    best = None
    for evs in t.events():
        durs = [d for _, _, d, _ in gs.bound_steps(evs)]
        v = [d for d, r in zip(durs, gs.steady_reasons(durs)) if r == ""]
        if len(v) < 3:
            continue
        m = sum(v) / len(v)
        if m <= 0:
            continue
        cv = 100.0 * (sum((x - m) ** 2 for x in v) / len(v)) ** 0.5 / m
        best = cv if best is None else max(best, cv)
    return best


def optimizer_of(t):
    """optimizer's value from the trace: the larger of the union of the
    Optimizer.step ranges and of the Optimizer-category kernels, inside
    the CPU steps, over the steps' time; None without steps."""
    num_c = num_g = den = 0
    for evs in t.events():
        steps = corp.merge(corp.cpu_steps(evs))
        opt = corp.merge([span(e) for e in evs
                          if e.get("ph") == "X" and has_ts(e)
                          and kind_of(e) in ("user_annotation", "cpu_op")
                          and str(e.get("name", "")).startswith(
                              "Optimizer.step")])
        gpu = corp.merge([span(e) for e in evs if kind_of(e) == "kernel"
                          and has_ts(e) and category_of(e) == "Optimizer"])
        num_c += corp.intersect_ns(opt, steps)
        num_g += corp.intersect_ns(gpu, steps)
        den += sum(b - a for a, b in steps)
    if den <= 0:
        return None
    return 100.0 * max(num_c, num_g) / den


class Doc(corp.Input):
    """An Input whose document is already in memory."""

    def __init__(self, path, doc):
        super().__init__(path)
        self._docs = [doc]


def trace_truth(t, db, only=None):
    """{rule: (value, severity, hint word)} the input asks for, or None for
    no finding; a rule left out is too close to its threshold.  only: the
    rules to grade (None: all)."""
    out = {}

    def want(rule):
        return only is None or rule in only
    # the rules that judge steps, not GPU time: no evidence needed
    if want("step-variation"):
        v = step_variation_of(t)
        if v is None or abs(v - 10) >= MARGIN:
            out["step-variation"] = (v, "medium", None) if v is not None \
                and v > 10 else None
    if want("optimizer"):
        v = optimizer_of(t)
        if v is None or abs(v - 15) >= MARGIN:
            out["optimizer"] = (v, "medium", None) if v is not None \
                and v > 15 else None
    if not any(want(r) for r in GPU_RULES):
        return out
    ev = corp.o_evidence(t, {}, db)
    if abs(ev - 1.0) < 0.001:
        return out
    enough = ev >= 1.0
    if not t.gpu():
        out.update({r: None for r in GPU_RULES if want(r)})
        return out

    def grade(rule, v, above, thr, sev="medium", hint=None):
        if abs(v - thr) < MARGIN:
            return
        out[rule] = (v, sev, hint) if enough and above else None

    if want("memory-ops"):
        v = corp.o_memory_ops(t, {}, db)
        grade("memory-ops", v, v > 10, 10)
    if want("fill-kernels"):
        v = corp.o_fill(t, {}, db)
        grade("fill-kernels", v, v > 5, 5)
    ks = [e for e in t.gpu() if kind_of(e) == "kernel"]
    if want("tiny-kernels") and ks:
        v = corp.o_tiny(t, {}, db)
        tiny = sum(1 for e in ks if span(e)[1] - span(e)[0] < 10000)
        grade("tiny-kernels", v, v > 50 and tiny >= 100, 50)
    elif want("tiny-kernels"):
        out["tiny-kernels"] = None
    if want("gpu-utilization"):
        f = {}
        v = corp.o_gpu_util(t, f, db)
        cpu, rt, none = f.get("_split", (0, 0, 0))
        hint = ("uninstrumented" if none > 50 else
                "runtime" if rt > cpu else "CPU-side")
        if abs(v - 50) >= MARGIN:
            grade("gpu-utilization", v, v < 80, 80,
                  "high" if v < 50 else "medium", hint)
    if want("exposed-comm"):
        v = corp.o_exposed(t, {}, db)
        if abs(v - 30) >= MARGIN:
            grade("exposed-comm", v, v > 10, 10,
                  "high" if v > 30 else "medium")
    if want("copy-ops"):
        v = corp.o_copy(t, {}, db)
        grade("copy-ops", v, v > 10, 10)
    top = corp.top_category_of(t, db) if want("top-category") else False
    if top is None:
        out["top-category"] = None
    elif top:
        lc = top[0].lower()
        gemm = any(w in lc for w in ("gemm", "matmul", "cutlass"))
        grade("top-category", top[1], top[1] > 30, 30,
              "info" if gemm else "medium", top[0])
    return out


def snapshot_truth(path):
    """{(rule, device): value or None}."""
    out = {}
    for d, ref in sref.reference(path).items():
        for rule, key, rec in (
                ("fragmentation", "fragmentation_pct",
                 "expandable_recommended"),
                ("reserved-unused", "reserved_unused_pct",
                 "empty_cache_recommended")):
            if abs(ref[key] - 10) >= MARGIN:
                out[(rule, d)] = ref[key] if ref[rec] else None
    return out


def empty_largest(segs, k):
    live = sorted((s for s in segs if any(b["state"] in LIVE
                                          for b in s["blocks"])),
                  key=lambda s: -s["total_size"])
    for s in live[:k]:
        for b in s["blocks"]:
            b["state"] = "inactive"


def free_share(segs, p):
    for s in segs:
        live = [b for b in s["blocks"] if b["state"] in LIVE]
        if not live:
            continue
        b = max(live, key=lambda x: x["size"])
        part = int(b["size"] * p) // 512 * 512
        if part == 0:
            continue
        c = {k: v for k, v in b.items() if k != "frames"}
        c.update(state="inactive", size=part, requested_size=0)
        if "address" in b:          # else the blocks' order places it
            c["address"] = b["address"] + b["size"] - part
        b["size"] -= part
        b["requested_size"] = min(b.get("requested_size", b["size"]),
                                  b["size"])
        s["blocks"].insert(s["blocks"].index(b) + 1, c)


def plain(v):
    if isinstance(v, dict):
        return {plain(k): plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return type(v)(plain(x) for x in v)
    return v


def segments_of(path):
    """The snapshot's segment list (the dict's 'segments' or the list)."""
    with open(path, "rb") as f:
        v = plain(sref.decode(f.read()))
    return v


def scenarios(factors=FACTORS):
    """(changed rule, label, builder) of every scenario (traces stretched by
    factors); builder(tmp) gives the input path."""
    out = []
    for name in TRACES:
        src = common.shared("traces", name)

        def base(tmp, src=src):
            return src
        out.append(("none", "%s as recorded" % name, base))
        doc = [None]

        def load(src=src, doc=doc):
            if doc[0] is None:
                d = common.load_json(src)
                doc[0] = d if isinstance(d, dict) else {"traceEvents": d}
            return doc[0]
        d0 = load()
        for rule, pick in CLASSES.items():
            if not any(kind_of(e) in GPU and has_ts(e) and pick(e)
                       for e in d0["traceEvents"]):
                continue                # the change would change nothing
            for f in factors:
                def build(tmp, load=load, pick=pick, f=f):
                    d = stretch(load(), pick, f)
                    p = os.path.join(tmp, "t.json")
                    with open(p, "w") as fh:
                        json.dump(d, fh)
                    return p, d
                out.append((rule, "%s %s x%g" % (name, rule, f), build))
    out += rule_scenarios()
    for name in SNAPSHOTS:
        src = common.shared("snapshots", name)
        for rule, edit, sizes in (("reserved-unused", empty_largest, EMPTIED),
                                  ("fragmentation", free_share, HOLES)):
            for k in sizes:
                def build(tmp, src=src, edit=edit, k=k):
                    v = segments_of(src)
                    segs = v["segments"] if isinstance(v, dict) else v
                    edit(segs, k)
                    p = os.path.join(tmp, "s.pickle")
                    with open(p, "wb") as fh:
                        fh.write(pickle.dumps(v, protocol=2))
                    return p, None
                out.append((rule, "%s %s %g" % (name, rule, k), build))
    for name in sorted(os.listdir(common.shared("nccl"))):
        src = common.shared("nccl", name)
        for n in WARNS:
            def build(tmp, src=src, n=n):
                lines = open(src, encoding="utf-8",
                             errors="replace").read().split("\n")
                rng = random.Random(n)
                for i in range(n):
                    lines.insert(rng.randrange(len(lines) + 1),
                                 "host:1:2 [0] NCCL WARN NET/IB : port"
                                 " error %d" % i)
                p = os.path.join(tmp, "nccl.log")
                with open(p, "w", encoding="utf-8") as fh:
                    fh.write("\n".join(lines))
                return p, n
            out.append(("nccl-warnings", "%s +%d WARN" % (name, n), build))
    return out


_DOCS = {}


def recorded(name):
    """The recorded trace's document (read once)."""
    if name not in _DOCS:
        d = common.load_json(common.shared("traces", name))
        _DOCS[name] = d if isinstance(d, dict) else {"traceEvents": d}
    return _DOCS[name]


def written(tmp, d):
    p = os.path.join(tmp, "t.json")
    with open(p, "w") as fh:
        json.dump(d, fh)
    return p, d


def rule_scenarios(names=None):
    """The step-variation, optimizer, copy-ops and top-category scenarios
    (see the module comment): (rule, label, builder); names: only those
    traces (None: all)."""
    out = []

    def pick(traces):
        return [n for n in traces if names is None or n in names]
    for name in pick(STEP_TRACES):
        if len(profiler_steps(recorded(name))) < 3:
            continue                    # the change would change nothing
        for seed in SEEDS:
            for frac in STALLS:
                def build(tmp, name=name, seed=seed, frac=frac):
                    d = recorded(name)
                    st = profiler_steps(d)
                    rng = random.Random("%s/%d" % (name, seed))
                    ts, dur = st[rng.randrange(len(st))]
                    t = ts + dur * rng.uniform(0.2, 0.8)
                    return written(tmp, stall(d, [t], frac * median(
                        [x for _, x in st])))
                out.append(("step-variation", "%s stall %g in a step seed %d"
                            % (name, frac, seed), build))
    for name in pick(OPT_TRACES):
        if not optimizer_ranges(recorded(name)):
            continue
        for seed in SEEDS:
            for frac in STALLS:
                def build(tmp, name=name, seed=seed, frac=frac):
                    d = recorded(name)
                    st = [x for _, x in profiler_steps(d)]
                    opt = optimizer_ranges(d)
                    rng = random.Random("%s/%d" % (name, seed))
                    pick = [o for o in opt if rng.random() < 0.5] or \
                        [rng.choice(opt)]
                    pts = [ts + dur * rng.uniform(0.2, 0.8)
                           for ts, dur in pick]
                    base = median(st) if st else max(x for _, x in opt)
                    return written(tmp, stall(d, pts, frac * base))
                out.append(("optimizer", "%s stall %g in Optimizer.step"
                            " seed %d" % (name, frac, seed), build))
    for name in pick(COPY_TRACES):
        if not copy_kernels(recorded(name)["traceEvents"]):
            continue
        for seed in SEEDS:
            for f in COPY_FACTORS:
                def build(tmp, name=name, seed=seed, f=f):
                    d = recorded(name)
                    rng = random.Random("%s/%d" % (name, seed))
                    ks = copy_kernels(d["traceEvents"])
                    keys = {key(e) for e in ks if rng.random() < 0.7} or \
                        {key(rng.choice(ks))}
                    return written(tmp, stretch(d, lambda e: key(e) in keys,
                                                f))
                out.append(("copy-ops", "%s copy kernels x%g seed %d"
                            % (name, f, seed), build))
    for name in pick(TOP_TRACES):
        # the seed: the largest, second or third category it may name
        for seed in SEEDS[:len(eligible_categories(recorded(name)))]:
            for f in TOP_FACTORS:
                def build(tmp, name=name, seed=seed, f=f):
                    d = recorded(name)
                    c = eligible_categories(d)[seed - 1]
                    return written(tmp, stretch(
                        d, lambda e: kind_of(e) in GPU
                        and category_of(e) == c, f))
                out.append(("top-category", "%s category #%d x%g"
                            % (name, seed, f), build))
    return out


def grade_one(profan, rule, build, tmp, only=None):
    """[(rule, expected, got)] of one scenario: expected/got are None (no
    finding) or a tuple of what must agree; only: the trace rules graded
    (None: all)."""
    common.PROFAN = profan
    db = os.path.join(tmp, "g.db")
    if os.path.exists(db):
        os.remove(db)
    got = build(tmp)
    path, doc = got if isinstance(got, tuple) else (got, None)
    r = common.run("ingest", path, db=db)
    if r.rc != 0:
        raise AssertionError("ingest %s: %s" % (path, r.err))
    r = common.run("--format", "json", "report", db=db)
    if r.rc != 0:
        raise AssertionError("report %s: %s" % (path, r.err))
    fs = r.json()["findings"]
    res = []
    if rule in ("reserved-unused", "fragmentation"):
        want = snapshot_truth(path)
        for (ru, d), v in want.items():
            f = [x for x in fs if x["rule"] == ru
                 and x["message"].startswith("device %s:" % d)]
            res.append((ru, None if v is None else round(v, 2),
                        round(f[0]["value"], 2) if f else None))
        return res
    if rule == "nccl-warnings":
        f = [x for x in fs if x["rule"] == rule and x["severity"] == "high"]
        res.append((rule, doc or None, int(f[0]["value"]) if f else None))
        return res
    if doc is None:
        d = common.load_json(path)
        doc = d if isinstance(d, dict) else {"traceEvents": d}
    want = trace_truth(Doc(path, doc), db, only)
    for ru, w in want.items():
        f = [x for x in fs if x["rule"] == ru]
        g = None
        if f:
            hint = next((h for h in ("uninstrumented", "runtime", "CPU-side")
                         if h in f[0]["hint"]), None) \
                if ru == "gpu-utilization" else None
            if ru == "top-category":
                hint = f[0]["message"].split(" takes ")[0]
            g = (round(f[0]["value"], 2), f[0]["severity"], hint)
        if w is not None:
            w = (round(w[0], 2), w[1], w[2])
            if g is not None and abs(g[0] - w[0]) <= 0.011:
                g = (w[0],) + g[1:]
        res.append((ru, w, g))
    return res


def table(profan, picked, progress=False, only=None):
    """{graded rule: counters} over the picked scenarios (only: the trace
    rules graded, None: all)."""
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i, (rule, label, build) in enumerate(picked):
            for ru, w, g in grade_one(profan, rule, build, tmp, only):
                own = ru == rule
                c = rows.setdefault(ru, dict(n=0, pos=0, det=0, neg=0,
                                             false=0, agree=0, wrong=[],
                                             own=0))
                c["n"] += 1
                c["own"] += own
                if w is not None:
                    c["pos"] += 1
                    c["det"] += g is not None
                else:
                    c["neg"] += 1
                    c["false"] += g is not None
                if w == g:
                    c["agree"] += 1
                else:
                    c["wrong"].append((label, w, g))
            if progress:
                sys.stderr.write("%d/%d %s\n" % (i + 1, len(picked), label))
    return rows


def print_table(rows, nsc):
    print("%d scenarios\n" % nsc)
    print("| finding | verdicts | should fire | detected | should not |"
          " false alarms | value, severity, hint agree |")
    print("|---|---|---|---|---|---|---|")
    for ru in sorted(rows):
        c = rows[ru]
        print("| `%s` | %d | %d | %d (%s) | %d | %d (%s) | %d of %d |"
              % (ru, c["n"], c["pos"], c["det"],
                 "%.0f %%" % (100.0 * c["det"] / c["pos"]) if c["pos"]
                 else "-", c["neg"], c["false"],
                 "%.0f %%" % (100.0 * c["false"] / c["neg"]) if c["neg"]
                 else "-", c["agree"], c["n"]))
    for ru in sorted(rows):
        for w in rows[ru]["wrong"]:
            print("disagrees: %s %s: want %s, got %s" % ((ru,) + w))


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    opts = dict(a[2:].split("=", 1) for a in argv[1:] if a.startswith("--"))
    prof = os.path.abspath(args[0] if args else os.path.join(
        common.ROOT, "build", "profan"))
    sc = scenarios(tuple(float(x) for x in opts["factors"].split(","))
                   if "factors" in opts else FACTORS)
    if "rule" in opts:              # only the scenarios that change these
        sc = [s for s in sc if s[0] in opts["rule"].split(",")]
    if "skip" in opts:              # leave out the scenarios of a trace
        sc = [s for s in sc if not s[1].startswith(opts["skip"])]
    # --only R,R: grade only these rules (the other oracles cost time)
    only = set(opts["only"].split(",")) if "only" in opts else None
    if "n" in opts:                 # N seeded; --rest: all but those N
        pick = random.Random(int(opts.get("seed", 31))).sample(
            sc, int(opts["n"]))
        sc = [s for s in sc if s not in pick] if "rest" in opts else pick
    rows = table(prof, sc, progress=True, only=only)
    print_table(rows, len(sc))
    short = below_targets(rows)
    for m in short:
        print("below target: " + m)
    return 0 if all(not c["wrong"] for c in rows.values()) and not short \
        else 1


def rates(c):
    """(detection, false-alarm rate) of one row of table(); None where it
    has no case."""
    return (c["det"] / c["pos"] if c["pos"] else None,
            c["false"] / c["neg"] if c["neg"] else None)


def below_targets(rows):
    """The rules of TARGETS whose rates miss them, as messages."""
    out = []
    for ru, (det, fa) in sorted(TARGETS.items()):
        if ru not in rows:
            continue
        d, f = rates(rows[ru])
        if d is not None and d < det:
            out.append("%s detection %.2f < %.2f" % (ru, d, det))
        if f is not None and f > fa:
            out.append("%s false alarms %.2f > %.2f" % (ru, f, fa))
    return out


if __name__ == "__main__":
    sys.exit(main(sys.argv))
