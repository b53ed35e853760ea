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

Every rule graded here is graded on every scenario: the truth is
recomputed from the changed input by the corpus test's oracles
(test_findings_corpus: trace JSON, the snapshot reference decoder, the
log text), the expected verdict from the documented thresholds, and
profan's findings are compared with it: present or not, the value, the
severity and, for gpu-utilization, which hint.  A value within 0.05 of
its threshold is not graded (rounding).

    python3 tests/e2e/findings_scenarios.py build/profan [--seed S]
                                            [--n N [--rest=1]]
                                            [--rule R] [--factors F,F..]

prints the table of the README (every scenario, or N of them drawn with
seed S, or all but those N: the counts of two runs add up); --rule R
only the scenarios that change R's class, --factors other stretch
factors than FACTORS.
CI runs a seeded handful (test_findings_rates.py)."""
import bisect
import copy
import json
import os
import pickle
import random
import sys
import tempfile

import common
import snapshot_reference as sref
import test_findings_corpus as corp
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
LIVE = ("active_allocated", "active_pending_free")


def is_fill(e):
    n = e.get("name", "").lower()
    return kind_of(e) == "kernel" and ("fill" in n or "zero" in n)


def is_tiny(e):
    return kind_of(e) == "kernel" and span(e)[1] - span(e)[0] < 10000


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


class Doc(corp.Input):
    """An Input whose document is already in memory."""

    def __init__(self, path, doc):
        super().__init__(path)
        self._docs = [doc]


def trace_truth(t, db):
    """{rule: (value, severity, hint word)} the input asks for, or None for
    no finding; a rule left out is too close to its threshold."""
    out = {}
    ev = corp.o_evidence(t, {}, db)
    if abs(ev - 1.0) < 0.001:
        return out
    enough = ev >= 1.0
    if not t.gpu():
        return {r: None for r in CLASSES}

    def grade(rule, v, above, thr, sev="medium", hint=None):
        if abs(v - thr) < MARGIN:
            return
        out[rule] = (v, sev, hint) if enough and above else None

    v = corp.o_memory_ops(t, {}, db)
    grade("memory-ops", v, v > 10, 10)
    v = corp.o_fill(t, {}, db)
    grade("fill-kernels", v, v > 5, 5)
    ks = [e for e in t.gpu() if kind_of(e) == "kernel"]
    if ks:
        v = corp.o_tiny(t, {}, db)
        tiny = sum(1 for e in ks if span(e)[1] - span(e)[0] < 10000)
        grade("tiny-kernels", v, v > 50 and tiny >= 100, 50)
    else:
        out["tiny-kernels"] = None
    f = {}
    v = corp.o_gpu_util(t, f, db)
    cpu, rt, none = f.get("_split", (0, 0, 0))
    hint = ("uninstrumented" if none > 50 else
            "runtime" if rt > cpu else "CPU-side")
    if abs(v - 50) >= MARGIN:
        grade("gpu-utilization", v, v < 80, 80,
              "high" if v < 50 else "medium", hint)
    v = corp.o_exposed(t, {}, db)
    if abs(v - 30) >= MARGIN:
        grade("exposed-comm", v, v > 10, 10, "high" if v > 30 else "medium")
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


def grade_one(profan, rule, build, tmp):
    """[(rule, expected, got)] of one scenario: expected/got are None (no
    finding) or a tuple of what must agree."""
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
    want = trace_truth(Doc(path, doc), db)
    for ru, w in want.items():
        f = [x for x in fs if x["rule"] == ru]
        g = None
        if f:
            hint = next((h for h in ("uninstrumented", "runtime", "CPU-side")
                         if h in f[0]["hint"]), None) \
                if ru == "gpu-utilization" else None
            g = (round(f[0]["value"], 2), f[0]["severity"], hint)
        if w is not None:
            w = (round(w[0], 2), w[1], w[2])
            if g is not None and abs(g[0] - w[0]) <= 0.011:
                g = (w[0],) + g[1:]
        res.append((ru, w, g))
    return res


def table(profan, picked, progress=False):
    """{changed rule: counters} over the picked scenarios."""
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i, (rule, label, build) in enumerate(picked):
            for ru, w, g in grade_one(profan, rule, build, tmp):
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
    if "rule" in opts:              # only the scenarios that change one
        sc = [s for s in sc if s[0] == opts["rule"]]
    if "n" in opts:                 # N seeded; --rest: all but those N
        pick = random.Random(int(opts.get("seed", 31))).sample(
            sc, int(opts["n"]))
        sc = [s for s in sc if s not in pick] if "rest" in opts else pick
    rows = table(prof, sc, progress=True)
    print_table(rows, len(sc))
    return 0 if all(not c["wrong"] for c in rows.values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
