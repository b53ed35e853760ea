"""test_annotation_sweep.py — the innermost CPU user annotation of every
launched GPU op and the parent of every annotation, decided at ingest by
a sweep and stored (schema 030, src/analysis/hta_annot.c, src/analysis/derive_hta_annot.c),
read by hta_annotation_kernel / hta_annotation_tree and annotation-kernels.

Expected values come from the trace JSON with brute-force Python (every
annotation of the launch call's thread tried for every op): per op the
annotation's name, its duration and the op's start relative to it (times
shift-free, so ranks whose clocks profan moves compare too), as multisets
over the run.  Ties on (ts, dur) go to the annotation later in the file
(profan's higher id), as 013's view returned them.  Fixtures: the control
trace (nested '## ... ##' record_function ranges), the dlrm 8-rank run,
and profan merge of four shards (the merged rows fed to the same sweep).
A hand-written trace pins the edge cases with answers known by
construction: equal ranges, same start with another length, a
zero-length range, a launch exactly at a range end, a ProfilerStep range
around everything, another thread's range, a memcpy.
"""
import collections
import json
import os
import subprocess

import common
from common import ProfanTest, shared, events, PROFAN
from trace_reference import us_to_ns

CONTROL = shared("traces", "hta-diff-control-a100-rank3.json.gz")
DLRM = shared("runs", "dlrm-8rank")

RUNTIME = {"cuda_runtime", "runtime", "cuda_driver", "hip_runtime",
           "hip_driver"}
GPU = {"kernel": "kernel", "gpu_memcpy": "memcpy", "memcpy": "memcpy",
       "gpu_memset": "memset", "memset": "memset"}

DB_SQL = ("SELECT k.kind, s.text, k.dur, sa.text, a.dur, k.ts - a.ts"
          " FROM hta_annotation_kernel k JOIN string s ON s.id = k.name_id"
          " LEFT JOIN annotation a ON a.id = k.annotation_id"
          " LEFT JOIN string sa ON sa.id = a.name_id")


def num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def expected_ops(path):
    """Counter of (kind, op name, op dur, annotation name, its dur, op ts -
    annotation ts) over the launched GPU ops of one trace file, None
    fields for an op with no annotation."""
    ann, runtime, gpu = collections.defaultdict(list), {}, []
    for i, e in enumerate(events(path)):
        if not isinstance(e, dict) or e.get("ph") != "X" \
                or not num(e.get("ts")) or not num(e.get("dur", 0)):
            continue
        cat = str(e.get("cat", "")).lower()
        args = e.get("args") or {}
        ts, dur = us_to_ns(e["ts"]), us_to_ns(e.get("dur", 0))
        if cat == "user_annotation" and \
                not str(e.get("name", "")).lower().startswith("profilerstep#"):
            ann[e.get("tid")].append((ts, dur, i, str(e.get("name", ""))))
        elif cat in RUNTIME and args.get("correlation") is not None:
            runtime[args["correlation"]] = (e.get("tid"), ts)
        elif cat in GPU:
            gpu.append((GPU[cat], str(e.get("name", "")), ts, max(0, dur),
                        args.get("correlation")))
    out = collections.Counter()
    for kind, name, ts, dur, corr in gpu:
        if corr is None or corr not in runtime:
            continue
        tid, t = runtime[corr]
        best = None
        for a in ann.get(tid, ()):
            if a[0] <= t <= a[0] + a[1] and (
                    best is None or (a[0], -a[1], a[2]) >
                    (best[0], -best[1], best[2])):
                best = a
        out[(kind, name, dur) + ((best[3], best[1], ts - best[0])
                                 if best else (None, None, None))] += 1
    return out


def db_ops(db):
    r = common.run("--format", "json", "sql", DB_SQL, db=db)
    assert r.rc == 0, r.err
    rows = json.loads(r.out) if r.out.strip() else []
    return collections.Counter(tuple(x.values()) for x in rows)


def hand_trace():
    """One rank, µs.  Thread 1: ProfilerStep#1 over everything, 'outer'
    [100, 500], 'tieA' and 'tieB' [200, 300] (tieB later in the file),
    'short' [200, 250], 'zero' [400, 400]; thread 2: 'other' [0, 1000].
    Kernel kT launched at T on thread 1 (k2_600 on thread 2)."""
    def X(cat, name, ts, dur, tid, **args):
        return {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": tid,
                "ts": ts, "dur": dur, "args": args}
    ev = [X("user_annotation", "ProfilerStep#1", 0, 1000, 1),
          X("user_annotation", "outer", 100, 400, 1),
          X("user_annotation", "tieA", 200, 100, 1),
          X("user_annotation", "tieB", 200, 100, 1),
          X("user_annotation", "short", 200, 50, 1),
          X("user_annotation", "zero", 400, 0, 1),
          X("user_annotation", "other", 0, 1000, 2)]
    launches = [("k50", 50, 1), ("k100", 100, 1), ("k220", 220, 1),
                ("k250", 250, 1), ("k260", 260, 1), ("k300", 300, 1),
                ("k301", 301, 1), ("k400", 400, 1), ("k401", 401, 1),
                ("k500", 500, 1), ("k501", 501, 1), ("k600", 600, 1),
                ("k2_600", 600, 2), ("m220", 220, 1)]
    for c, (name, t, tid) in enumerate(launches, 1):
        ev.append(X("cuda_runtime", "cudaLaunchKernel", t, 0.5, tid,
                    correlation=c))
        ev.append({"ph": "X", "cat": "gpu_memcpy" if name[0] == "m"
                   else "kernel", "name": name, "pid": 0, "tid": 7,
                   "ts": 2000 + 10 * c, "dur": 5,
                   "args": {"correlation": c, "device": 0, "stream": 7}})
    return {"traceEvents": ev}


# by construction (the order: latest start, then shortest, then later in
# the file; a range holds its start and end)
HAND = {"k50": None, "k100": "outer", "k220": "short", "k250": "short",
        "k260": "tieB", "k300": "tieB", "k301": "outer", "k400": "zero",
        "k401": "outer", "k500": "outer", "k501": None, "k600": None,
        "k2_600": "other", "m220": "short"}
HAND_PATHS = {"outer": "outer", "tieA": "outer / tieA",
              "tieB": "outer / tieA / tieB", "short": "outer / tieA / tieB"
              " / short", "zero": "outer / zero", "other": "other"}


class AnnotationSweep(ProfanTest):

    def ingest_env(self, name, paths, env=None):
        db = os.path.join(self.tmp.name, name + ".db")
        r = common.run("ingest", "--quiet", *paths, db=db, env=env)
        self.assertEqual(r.rc, 0, r.err)
        return db

    def expected(self, paths):
        exp = collections.Counter()
        for p in paths:
            exp += expected_ops(p)
        return exp

    def check_paths(self, label, paths):
        exp = self.expected(paths)
        self.assertTrue(any(k[3] is not None for k in exp), label)
        self.assertTrue(any(k[3] is None for k in exp), label)
        db = self.ingest_env(label, paths)
        self.assertEqual(db_ops(db), exp, label)

    def test_control_trace(self):
        self.check_paths("control", [CONTROL])

    def test_dlrm_8_ranks(self):
        files = sorted(os.path.join(DLRM, f) for f in os.listdir(DLRM))
        self.check_paths("dlrm", files)

    def test_merge_of_four_shards(self):
        files = sorted(os.path.join(DLRM, f) for f in os.listdir(DLRM))
        shards = [self.ingest_env("s%d" % i, files[2 * i:2 * i + 2])
                  for i in range(4)]
        r = subprocess.run([PROFAN, "merge", "--into", self.db, "--name",
                            "dlrm"] + shards, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(db_ops(self.db), self.expected(files))
        # merging again into the same run adds nothing, rows replaced once
        n = self.sql("SELECT count(*) AS n FROM hta_launch_annotation")
        self.assertGreater(int(n[0]["n"]), 0)

    def test_hand_written_edge_cases(self):
        p = os.path.join(self.tmp.name, "hand.json")
        with open(p, "w") as f:
            json.dump(hand_trace(), f)
        exp = expected_ops(p)          # the brute force agrees with HAND
        self.assertEqual({k[1]: k[3] for k in exp}, HAND)
        db = self.ingest_env("hand", [p])
        self.assertEqual(db_ops(db), exp)
        r = common.run("--format", "json", "sql",
                       "SELECT name, path FROM hta_annotation_tree", db=db)
        self.assertEqual(r.rc, 0, r.err)
        self.assertEqual({x["name"]: x["path"]
                          for x in json.loads(r.out)}, HAND_PATHS)
        self.ingest_ok(p)
        rows = {r["path"]: (int(r["ops"]), int(r["self_ops"]))
                for r in self.query("annotation-kernels")}
        self.assertEqual(rows, {
            "outer": (10, 4), "outer / tieA": (5, 0),
            "outer / tieA / tieB": (5, 2),
            "outer / tieA / tieB / short": (3, 3), "outer / zero": (1, 1),
            "other": (1, 1)})


def gpu_range_trace():
    """One rank, µs: kernel c (1..14) at GPU time 2000 + 10c on device 0,
    stream 7, c µs long (launched at c, in ProfilerStep#1 for c <= 7,
    #2 after), and GPU-side ranges (gpu_user_annotation: pid the device,
    tid the stream): 'gA' [2020, 2060) and again [2100, 2110) (a kernel at
    each end), 'gB'
    nested in the first [2030, 2041), 'gEdge' [2060, 2061) (a kernel at
    its start; the previous range's end), 'gZero' [2080, 2080), 'gOther'
    on stream 8 [2000, 2200), 'gAfter' [2141, 2200)."""
    def X(cat, name, ts, dur, pid, tid, **args):
        return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid,
                "ts": ts, "dur": dur, "args": args}
    ev = [X("user_annotation", "ProfilerStep#1", 0, 7.9, 1, 1),
          X("user_annotation", "ProfilerStep#2", 7.9, 10, 1, 1)]
    for c in range(1, 15):
        ev.append(X("cuda_runtime", "cudaLaunchKernel", c, 0.5, 1, 1,
                    correlation=c))
        ev.append(X("kernel", "k%d" % c, 2000 + 10 * c, c, 0, 7,
                    correlation=c, device=0, stream=7))
    for name, ts, dur, tid in (("gA", 2020, 40, 7), ("gA", 2100, 10, 7),
                               ("gB", 2030, 11, 7), ("gEdge", 2060, 1, 7),
                               ("gZero", 2080, 0, 7), ("gOther", 2000, 200, 8),
                               ("gAfter", 2141, 59, 7)):
        ev.append(X("gpu_user_annotation", name, ts, dur, 0, tid))
    return {"traceEvents": ev}


def gpu_range_expected(doc, by_step):
    """{(step or '', 'gpu: NAME'): (ops, ns)} by brute force: every kernel
    whose start lies in [range start, range end) on the range's device
    and stream (steps: the launch call's ProfilerStep range)."""
    evs = doc["traceEvents"]
    steps = [(e["ts"], e["ts"] + e["dur"], int(e["name"].split("#")[1]))
             for e in evs if e["name"].startswith("ProfilerStep#")]
    launch = {e["args"]["correlation"]: e["ts"] for e in evs
              if e["cat"] == "cuda_runtime"}
    out = collections.defaultdict(lambda: [0, 0])
    for a in evs:
        if a["cat"] != "gpu_user_annotation":
            continue
        for k in evs:
            if k["cat"] != "kernel" or k["args"]["stream"] != a["tid"] \
                    or not a["ts"] <= k["ts"] < a["ts"] + a["dur"]:
                continue
            t = launch[k["args"]["correlation"]]
            st = [s for b, e, s in steps if b <= t < e][0] if by_step else ""
            out[(str(st), "gpu: " + a["name"])][0] += 1
            out[(str(st), "gpu: " + a["name"])][1] += us_to_ns(k["dur"])
    return {key: tuple(v) for key, v in out.items()}


class GpuRanges(ProfanTest):
    """annotation-kernels' GPU-side rows ('gpu: NAME'): the ops that start
    inside a range on its stream, counted by a sweep of each stream since
    issue 35 (a range's start holds an op starting there, its end does
    not; nested ranges each count the op; a zero-length range none)."""

    def test_gpu_ranges_by_brute_force(self):
        doc = gpu_range_trace()
        p = os.path.join(self.tmp.name, "ranges.json")
        with open(p, "w") as f:
            json.dump(doc, f)
        self.ingest_ok(p)
        for by_step in (0, 1):
            exp = gpu_range_expected(doc, by_step)
            if not by_step:            # the brute force agrees by hand
                self.assertEqual(exp, {
                    ("", "gpu: gA"): (5, (2 + 3 + 4 + 5 + 10) * 1000),
                    ("", "gpu: gB"): (2, (3 + 4) * 1000),
                    ("", "gpu: gEdge"): (1, 6000)})
            rows = self.query("annotation-kernels", "--param",
                              "by_step=%d" % by_step, "--limit", "1000")
            got = {(r["step"], r["path"]): (int(r["ops"]),
                                            round(float(r["gpu_ms"]) * 1e6))
                   for r in rows if r["path"].startswith("gpu: ")}
            self.assertEqual(got, exp, by_step)
