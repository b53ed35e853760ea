"""test_hta32.py — issue 32: the HTA analyses right on every trace shape.

One test per point, on the fixtures of fixtures/hta32 (written by its
gen.py, regenerated here into a temporary directory and compared with the
committed files), with every expected number computed from the JSON in
Python: critical path of a GPU-bound step with blocked launches, launch
queue with a CUDA graph launch, memory-bandwidth percentiles with a copy
without bytes, length-1 kernel sequences, roofline bytes of scalar /
`out=` / broadcast / gather / in-place operands, per-op GB/s from Kineto's
bandwidth arg, and HTA's launch statistics and ATen-op kernels.
"""
import collections
import filecmp
import gzip
import importlib.util
import json
import os
import sqlite3

import hta_reference as ref
import roofline_reference as R
from common import ProfanTest, ROOT, local, shared, events
from trace_reference import us_to_ns

GEN = os.path.join(ROOT, "fixtures", "hta32", "gen.py")


def load_gen():
    spec = importlib.util.spec_from_file_location("hta32_gen", GEN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def f(x):
    return float(x) if x not in ("", None) else None


def fixture(name):
    return local("hta32", name)


def doc(name):
    with gzip.open(fixture(name), "rt") as fh:
        return json.load(fh)


def xevents(name, cat=None):
    return [e for e in doc(name)["traceEvents"]
            if e.get("ph") == "X" and (cat is None or e.get("cat") == cat)]


class Hta32Base(ProfanTest):
    def ingest_fixture(self, name):
        self.ingest_ok(fixture(name))


class FixturesCommittedTest(ProfanTest):
    def test_hta32_fixtures_are_the_generator_output(self):
        gen = load_gen()
        for name in gen.FIXTURES:
            p = gen.write(self.tmp.name, name)
            self.assertTrue(filecmp.cmp(p, fixture(name), shallow=False),
                            name + ": run fixtures/hta32/gen.py")


class CriticalPathBlockedTest(Hta32Base):
    """Point 1: a launch that found its stream's queue full waited for the
    GPU, so a GPU-bound step's path is its kernels, not its launches."""

    def test_hta32_blocked_launches_path_through_kernels(self):
        self.ingest_fixture("blocked-queue.json.gz")
        ev = xevents("blocked-queue.json.gz")
        kern = sorted((e["ts"], e["ts"] + e["dur"]) for e in ev
                      if e["cat"] == "kernel")
        steps = {int(e["name"].split("#")[1]): (e["ts"], e["ts"] + e["dur"])
                 for e in ev if e["name"].startswith("ProfilerStep#")}
        rows = {int(r["step"]): r for r in self.query("critical-path")}
        self.assertEqual(set(rows), set(steps))
        for n, (a, b) in steps.items():
            # kernels run back to back through the step: the path is the
            # kernels up to the last end by the step end, then the tail
            last = max(e for s, e in kern if e <= b)
            exp_kernel = 100.0 * (last - a) / (b - a)
            r = rows[n]
            self.assertAlmostEqual(f(r["kernel_pct"]), exp_kernel, delta=0.02,
                                   msg=n)
            self.assertEqual(r["top_class"], "kernel", n)
            self.assertEqual(r["top_name"], "gemm_kernel", n)
            self.assertLess(f(r["launch_pct"]), 0.1, n)
            # the launches of steps 1-3 really blocked: they last ~100 us
            calls = [e for e in ev if e["cat"] == "cuda_runtime"
                     and a <= e["ts"] < b and e["name"] == "cudaLaunchKernel"]
            if n < 4:
                durs = sorted(c["dur"] for c in calls)
                self.assertGreaterEqual(durs[len(durs) // 2], 99)
        m = {r["metric"]: f(r["value"]) for r in self.sql(
            "SELECT metric, value FROM hta_metric")}
        self.assertGreater(m["hta_cp_kernel_pct"], 99.9)
        self.assertGreater(m["hta_queue_blocked_ms"], 0)


class QueueGraphTest(Hta32Base):
    """Point 2: a graph launch is one queue entry."""

    def test_hta32_graph_launch_never_blocks(self):
        self.ingest_fixture("graph-launch.json.gz")
        ev = xevents("graph-launch.json.gz")
        kern = [e for e in ev if e["cat"] == "kernel"]
        self.assertEqual(len(kern), 1100)
        self.assertEqual(len({e["args"]["correlation"] for e in kern}), 1)
        rows = self.query("queue-length")
        self.assertEqual(len(rows), 1)
        self.assertEqual((int(rows[0]["changes"]), int(rows[0]["max"]),
                          f(rows[0]["blocked_ms"])), (2, 1, 0.0))
        m = {r["metric"]: f(r["value"]) for r in self.sql(
            "SELECT metric, value FROM hta_metric")}
        self.assertEqual(m["hta_queue_blocked_ms"], 0.0)

    def test_hta32_v100_no_phantom_blocking(self):
        """hta-diff-test-v100-rank1: 12 cudaGraphLaunch calls of up to 502
        kernels; counted per call the queue never reaches 1024."""
        path = shared("traces", "hta-diff-test-v100-rank1.json.gz")
        self.ingest_ok(path)
        t = ref.Trace(events(path))
        exp = {s: ref.queue_stats(rows)
               for (d, s), rows in ref.queue_series(t).items()}
        self.assertEqual(max(e["max"] for e in exp.values()), 1013)
        for r in self.query("queue-length"):
            e = exp[int(r["stream"])]
            self.assertEqual((int(r["changes"]), int(r["max"])),
                             (e["changes"], e["max"]), r["stream"])
            self.assertEqual(f(r["blocked_ms"]), 0.0)
        m = {r["metric"]: f(r["value"]) for r in self.sql(
            "SELECT metric, value FROM hta_metric")}
        self.assertEqual(m["hta_queue_blocked_ms"], 0.0)

    def test_hta32_rocm_queue_has_no_cuda_limit(self):
        """MI300X: 1,840 queued launches that take 3 us are not blocked."""
        path = shared("traces", "tracelens-mi300-resnet-ckpt.json.gz")
        self.ingest_ok(path)
        rows = self.query("queue-length")
        self.assertGreater(max(int(r["max"]) for r in rows), 1024)
        self.assertTrue(all(f(r["blocked_ms"]) == 0.0 for r in rows))


class BandwidthP50Test(Hta32Base):
    """Point 3: rows without GB/s do not count in the percentiles."""

    def test_hta32_p50_ignores_copies_without_bytes(self):
        self.ingest_fixture("htod-p50.json.gz")
        cp = xevents("htod-p50.json.gz", "gpu_memcpy")
        bw = sorted(e["args"]["bytes"] / (e["dur"] * 1000.0) for e in cp
                    if "bytes" in e["args"])
        rows = self.query("memory-bandwidth")
        self.assertEqual(len(rows), 1)
        r = rows[0]
        self.assertEqual(int(r["count"]), 3)
        self.assertEqual(f(r["p50_gbps"]), ref.percentile(bw, .5))
        self.assertEqual(f(r["p50_gbps"]), 1.5)
        self.assertEqual(f(r["mean_gbps"]), sum(bw) / len(bw))


class SequencesLengthOneTest(Hta32Base):
    """Point 4: min_length=1 max_length=1 gives the single kernels."""

    def test_hta32_length_one_sequences(self):
        self.ingest_fixture("kernel-abab.json.gz")
        k = xevents("kernel-abab.json.gz", "kernel")
        exp = collections.Counter(e["name"] for e in k)
        rows = self.query("kernel-sequences", "--param", "min_length=1",
                          "--param", "max_length=1")
        got = {r["sequence"]: int(r["count"]) for r in rows}
        self.assertEqual(got, dict(exp))
        for r in rows:
            self.assertEqual(int(r["length"]), 1)
            ms = sum(e["dur"] for e in k if e["name"] == r["sequence"]) / 1e3
            self.assertAlmostEqual(f(r["total_ms"]), ms, places=6)
        rows = self.query("kernel-sequences", "--param", "min_length=1",
                          "--param", "max_length=2")
        self.assertEqual({int(r["length"]) for r in rows}, {1, 2})


class BandwidthArgTest(Hta32Base):
    """Point 8: per-op GB/s from Kineto's arg (exact duration) where the
    trace has it; the column says where each number comes from."""

    def test_hta32_bandwidth_arg_used(self):
        self.ingest_fixture("bandwidth-arg.json.gz")
        cp = xevents("bandwidth-arg.json.gz", "gpu_memcpy")
        bw = []
        for e in cp:
            a = e["args"]
            if "memory bandwidth (GB/s)" in a:
                bw.append(a["memory bandwidth (GB/s)"])
                # the arg is from the exact duration, dur is truncated
                exact_us = a["bytes"] / a["memory bandwidth (GB/s)"] / 1e3
                self.assertTrue(0 <= exact_us - e["dur"] < 1)
            else:
                bw.append(a["bytes"] / (e["dur"] * 1e3))
        r = self.query("memory-bandwidth")[0]
        self.assertAlmostEqual(f(r["mean_gbps"]), sum(bw) / len(bw), places=3)
        self.assertAlmostEqual(f(r["p50_gbps"]), ref.percentile(bw, .5),
                               places=3)
        self.assertAlmostEqual(f(r["max_gbps"]), max(bw), places=3)
        self.assertEqual(r["gbps_source"], "arg+dur_whole_us")
        # the export carries the arg: a re-ingest gives the same numbers
        out = os.path.join(self.tmp.name, "x.json")
        res = self.profan("export-trace", "latest", "-o", out)
        self.assertEqual(res.rc, 0, res.err)
        self.ingest_ok(out)
        r2 = self.query("memory-bandwidth")[0]
        self.assertEqual((r2["mean_gbps"], r2["gbps_source"]),
                         (r["mean_gbps"], r["gbps_source"]))

    def test_hta32_control_matches_hta_per_op_bandwidth(self):
        """HTA's DtoD mean 537.1, max 934.0 GB/s on the control trace."""
        self.ingest_ok(shared("traces", "hta-diff-control-a100-rank3.json.gz"))
        rows = {r["kind"]: r for r in self.query("memory-bandwidth")}
        self.assertEqual(round(f(rows["Memcpy DtoD"]["mean_gbps"]), 1), 537.1)
        self.assertEqual(round(f(rows["Memcpy DtoD"]["max_gbps"]), 1), 934.0)
        self.assertEqual(rows["Memcpy DtoD"]["gbps_source"], "arg")


def launches(evs):
    """[(call, gpu op)] of a trace: runtime calls and GPU ops joined on
    their correlation id (one call may have several ops)."""
    calls, gpu = {}, []
    for e in evs:
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        a = e.get("args") or {}
        cat = str(e.get("cat", "")).lower()
        if cat in ref.RUNTIME_CATS and a.get("correlation") is not None:
            calls[a["correlation"]] = e
        elif cat in ref.GPU_CATS and a.get("correlation") is not None:
            gpu.append(e)
    return [(calls[g["args"]["correlation"]], g) for g in gpu
            if g["args"]["correlation"] in calls]


def us(e, k="ts"):
    return us_to_ns(e[k])                     # ns, as profan stores them


class LaunchStatsTest(Hta32Base):
    """HTA's get_cuda_kernel_launch_stats, grouped per call and op name."""

    def check(self, evs):
        exp = collections.defaultdict(list)
        for c, g in launches(evs):
            cpu, gpu = us(c, "dur"), us(g, "dur")
            delay = max(0, us(g) - us(c) - cpu)
            exp[(c["name"], g["name"])].append((cpu, gpu, delay))
        rows = self.query("kernel-launch-stats", "--param", "limit=100000")
        self.assertEqual(len(rows), len(exp))
        for r in rows:
            v = exp[(r["call"], r["name"])]
            self.assertEqual(int(r["launches"]), len(v))
            self.assertAlmostEqual(f(r["delay_mean_us"]),
                                   sum(d for _, _, d in v) / len(v) / 1e3,
                                   delta=0.0006)
            self.assertEqual(int(r["runtime_outliers"]),
                             sum(c > 50000 for c, _, _ in v))
            self.assertEqual(int(r["delay_outliers"]),
                             sum(d > 100000 for _, _, d in v))
            self.assertEqual(int(r["short_gpu"]),
                             sum(g < c <= 50000 for c, g, _ in v))
        return rows

    def test_hta32_launch_stats_fixture(self):
        self.ingest_fixture("launch-stats.json.gz")
        rows = self.check(xevents("launch-stats.json.gz"))
        tot = {k: sum(int(r[k]) for r in rows)
               for k in ("runtime_outliers", "delay_outliers")}
        self.assertEqual(tot, {"runtime_outliers": 1, "delay_outliers": 1})

    def test_hta32_launch_stats_control(self):
        path = shared("traces", "hta-diff-control-a100-rank3.json.gz")
        self.ingest_ok(path)
        self.check(events(path))


def aten_kernels(evs):
    """HTA's get_aten_op_kernels_and_delay, on one thread: each launch call
    under its innermost wrapping aten:: op;
    per op call the launched sequence and the first launch's delays;
    grouped per (op, sequence): [calls, op delays, runtime delays]."""
    ops = collections.defaultdict(list)
    for i, e in enumerate(evs):
        if isinstance(e, dict) and e.get("ph") == "X" \
                and str(e.get("name", "")).startswith("aten::") \
                and str(e.get("cat", "")).lower() in ("cpu_op", "operator"):
            ops[e.get("tid")].append((us(e), us(e) + us(e, "dur"), e["name"],
                                      i))
    # per thread, calls in start order against the ops open at each call
    # (a sweep: the ops started by then, those ended before it dropped)
    per_call = collections.defaultdict(list)
    by_tid = collections.defaultdict(list)
    for c, g in launches(evs):
        by_tid[c.get("tid")].append((us(c), us(c) + us(c, "dur"), us(g),
                                     g["name"]))
    for tid, cl in by_tid.items():
        ol = sorted(ops.get(tid, ()), key=lambda o: (o[0], -o[1], o[3]))
        cl.sort()
        j, open_ = 0, []
        for a, b, gts, gname in cl:
            while j < len(ol) and ol[j][0] <= a:
                open_.append(ol[j])
                j += 1
            open_ = [o for o in open_ if o[1] >= a]
            best = None
            for o in open_:
                # innermost: latest start, then shortest, then later in
                # the file (a child written after a parent of the same
                # extent)
                if o[1] >= b and (best is None or (o[0], -o[1], o[3]) >
                                  (best[0], -best[1], best[3])):
                    best = o
            if best is not None:
                per_call[best].append((a, gts, gname))
    out = collections.defaultdict(lambda: [0, [], []])
    for op, ls in per_call.items():
        ls.sort()
        key = (op[2], " -> ".join(n for _, _, n in ls))
        out[key][0] += 1
        out[key][1].append(ls[0][0] - op[0])
        out[key][2].append(ls[0][1] - ls[0][0])
    return out


class AtenOpKernelsTest(Hta32Base):

    def check(self, evs):
        exp = aten_kernels(evs)
        rows = self.query("aten-op-kernels", "--param", "limit=100000")
        self.assertEqual(len(rows), len(exp))
        for r in rows:
            n, od, rd = exp[(r["op"], r["kernels"])]
            self.assertEqual(int(r["calls"]), n, r["op"])
            self.assertAlmostEqual(f(r["op_delay_us"]), sum(od) / n / 1e3,
                                   delta=0.0006)
            self.assertAlmostEqual(f(r["runtime_delay_us"]),
                                   sum(rd) / n / 1e3, delta=0.0006)
        return rows

    def test_hta32_aten_op_kernels_fixture(self):
        self.ingest_fixture("launch-stats.json.gz")
        rows = self.check(xevents("launch-stats.json.gz"))
        got = {(r["op"], r["kernels"]): int(r["calls"]) for r in rows}
        # the gemm belongs to aten::addmm (innermost), the bias kernel to
        # aten::linear, the memset to no aten op
        self.assertEqual(got, {("aten::addmm", "sm90_gemm_kernel"): 2,
                               ("aten::linear", "bias_add_kernel"): 2,
                               ("aten::relu", "relu_kernel"): 1})

    def test_hta32_aten_op_kernels_first_launch_ties(self):
        """The first GPU op of a call is the least (launch call start, GPU
        op start): two launches at one start, the later-written one's
        kernel first on the GPU; negative times (the query packs the pair
        into text that must sort as the numbers do, issue 35)."""
        def X(cat, name, ts, dur, tid, **args):
            return {"ph": "X", "cat": cat, "name": name, "pid": 1,
                    "tid": tid, "ts": ts, "dur": dur, "args": args}
        evs = [X("cpu_op", "aten::mm", -1000, 500, 1),
               X("cuda_runtime", "cudaLaunchKernel", -900, 5, 1,
                 correlation=1),
               X("cuda_runtime", "cudaLaunchKernel", -900, 8, 1,
                 correlation=2),
               X("cuda_runtime", "cudaLaunchKernel", -700, 5, 1,
                 correlation=3)]
        for c, ts in ((1, -400), (2, -450), (3, -300)):
            evs.append({"ph": "X", "cat": "kernel", "name": "k%d" % c,
                        "pid": 0, "tid": 7, "ts": ts, "dur": 10,
                        "args": {"correlation": c, "device": 0,
                                 "stream": 7}})
        p = os.path.join(self.tmp.name, "ties.json")
        with open(p, "w") as fh:
            json.dump({"traceEvents": evs}, fh)
        self.ingest_ok(p)
        rows = self.check(evs)
        self.assertEqual(len(rows), 1)
        # op start -1000 -> first launch -900 -> its GPU op -450 (k2)
        self.assertEqual((f(rows[0]["op_delay_us"]),
                          f(rows[0]["runtime_delay_us"])), (100.0, 450.0))

    def test_hta32_aten_op_kernels_control(self):
        path = shared("traces", "hta-diff-control-a100-rank3.json.gz")
        self.ingest_ok(path)
        self.check(events(path))


class CounterTracksTest(Hta32Base):
    """export-trace writes the launch queue of every stream and the
    memory bandwidth in use as counter tracks (HTA's
    generate_trace_with_counters)."""

    def counters(self, out):
        with open(out) as fh:
            d = json.load(fh)
        c = collections.defaultdict(list)
        for e in d["traceEvents"]:
            if e.get("ph") == "C" and e.get("cat") == "profan":
                c[e["name"]].append((round(e["ts"] * 1000),
                                     list(e["args"].values())[0]))
        return d, c

    def test_hta32_queue_counter_track(self):
        self.ingest_fixture("blocked-queue.json.gz")
        out = os.path.join(self.tmp.name, "x.json")
        r = self.profan("export-trace", "latest", "-o", out)
        self.assertEqual(r.rc, 0, r.err)
        d, c = self.counters(out)
        base = d["baseTimeNanoseconds"]
        t = ref.Trace(xevents("blocked-queue.json.gz"))
        (key, rows), = ref.queue_series(t).items()
        # the value after the last change at each time
        exp = {}
        for ts, q, nxt, _ in rows:
            exp[ts] = q
        t0 = min(exp)
        got = c["GPU 0 stream 7 queue length"]
        self.assertEqual(len(got), len(exp))
        self.assertEqual(max(v for _, v in got), max(exp.values()))
        # times relative to the first change (the export's base differs)
        g0 = min(ts for ts, _ in got)
        self.assertEqual({ts - g0: v for ts, v in got},
                         {ts - t0: v for ts, v in exp.items()})
        self.assertIsNotNone(base)

    def test_hta32_bandwidth_counter_track(self):
        self.ingest_fixture("htod-p50.json.gz")
        out = os.path.join(self.tmp.name, "x.json")
        r = self.profan("export-trace", "latest", "-o", out)
        self.assertEqual(r.rc, 0, r.err)
        _, c = self.counters(out)
        got = c["GPU 0 Memcpy HtoD (GB/s)"]
        # copies with bytes: +GB/s at start, 0 at end (they do not overlap)
        exp = []
        for e in xevents("htod-p50.json.gz", "gpu_memcpy"):
            if "bytes" in e["args"]:
                exp.append(e["args"]["bytes"] / (e["dur"] * 1000.0))
                exp.append(0.0)
        self.assertEqual([round(v, 6) for _, v in got], exp)
        # a re-ingested export holds the same rows (counters are ignored)
        self.ingest_ok(out)
        self.assertEqual(self.sql("SELECT count(*) AS n FROM gpu_mem_op"
                                  " GROUP BY run_id"),
                         [{"n": "3"}, {"n": "3"}])


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def real_bytes(name, dims, types, conc):
    """Bytes an op's kernel reads and writes, from its operator's
    definition (TraceLens's elementwise models, the gather's rows):
    every tensor operand read once at its own size (a scalar [] is one
    element), an `out=` operand (mul/div arg 2) only written, the output
    the broadcast shape, written once; index_select reads numel(index)
    rows of self and writes them, and reads the indices."""
    size = {"float": 4, "double": 8, "long int": 8}
    if name == "aten::index_select":
        dim = int(conc[1] or 0)
        row = numel(dims[0]) // dims[0][dim]
        return 2 * numel(dims[2]) * row * size[types[0]] \
            + numel(dims[2]) * size[types[2]]
    return sum(numel(dims[i]) for i in read_args(name, dims, types)) \
        * size[types[0]] + written_bytes(name, dims, types)


def read_args(name, dims, types):
    """Positions of the tensor operands read (mul's arg 2 is out=)."""
    return [i for i, d in enumerate(dims) if types[i] in
            ("float", "double", "long int")
            and not (name == "aten::mul" and i == 2)]


def written_bytes(name, dims, types):
    """Bytes of the output: the broadcast shape of the tensors read
    (elementwise ops), at the first operand's size."""
    size = {"float": 4, "double": 8, "long int": 8}
    read = read_args(name, dims, types)
    nd = max(len(dims[i]) for i in read)
    out = [1] * nd
    for i in read:
        d = [1] * (nd - len(dims[i])) + list(dims[i])
        out = [max(a, b) for a, b in zip(out, d)]
    return numel(out) * size[types[0]]


def footprint(name, dims, types, nbytes):
    """Distinct bytes: an in-place op (add_) writes its input, counted
    once."""
    if name.endswith("_"):
        return nbytes - written_bytes(name, dims, types)
    return nbytes


class RooflineBytesTest(Hta32Base):
    """Point 5: scalar, out=, broadcast, gather and in-place operands at
    their real sizes: each kernel of the fixture runs at 80 % of its real
    HBM roofline (H100 3.35 TB/s), so a wrong byte count shows; their
    tensors fit in H100's L2, so the rows read against the L2 roof."""

    def test_hta32_roofline_real_bytes(self):
        self.ingest_fixture("roofline-bytes.json.gz")
        ev = xevents("roofline-bytes.json.gz")
        ops = [e for e in ev if e["cat"] == "cpu_op"]
        kern = {e["args"]["correlation"]: e for e in ev if e["cat"] == "kernel"}
        calls = [e for e in ev if e["cat"] == "cuda_runtime"]
        exp = {}
        for o in ops:
            a = o["args"]
            c = next(c for c in calls
                     if o["ts"] <= c["ts"] <= o["ts"] + o["dur"])
            k = kern[c["args"]["correlation"]]
            nbytes = real_bytes(o["name"], a["Input Dims"], a["Input type"],
                                a["Concrete Inputs"])
            # 80 % of the HBM roof by construction
            self.assertAlmostEqual(nbytes / 3.35e3 / us_to_ns(k["dur"]), 0.8,
                                   delta=1e-3)
            # the elementwise FLOPs (one an element) take under 2 % of the
            # L2 time on the H100: the memory terms decide
            roof_ns, tier, _, _ = R.roof(
                "H100 SXM", "fp32", 0, nbytes,
                nbytes if o["name"] == "aten::index_select" else
                footprint(o["name"], a["Input Dims"], a["Input type"],
                          nbytes))
            self.assertEqual(tier, "l2")
            exp[(o["name"], json.dumps(a["Input Dims"],
                                       separators=(",", ":")))] = \
                (nbytes, 100.0 * roof_ns / us_to_ns(k["dur"]))
        rows = self.query("op-roofline")
        self.assertEqual(len(rows), len(exp))
        for r in rows:
            nbytes, pct = exp[(r["name"], r["dims"])]
            self.assertAlmostEqual(f(r["gbytes"]), nbytes / 1e9, places=5,
                                   msg=r["name"] + r["dims"])
            self.assertAlmostEqual(f(r["roofline_pct"]), pct, delta=0.05,
                                   msg=r["name"] + r["dims"])
            self.assertLessEqual(f(r["roofline_pct"]), 100.0)
        kinds = {r["kind"]: r for r in self.query("op-kinds")}
        self.assertEqual(set(kinds), {"elementwise", "gather"})


class AllRanksExportTest(ProfanTest):
    """Point 7: an export of several ranks is refused at ingest with one
    line naming the file (nothing written); each rank exported alone
    ingests as that rank."""

    def test_hta32_all_ranks_export_refused(self):
        self.ingest_ok(shared("runs", "dlrm-8rank"))
        out = os.path.join(self.tmp.name, "all.json")
        r = self.profan("export-trace", "latest", "--rank", "all", "-o", out)
        self.assertEqual(r.rc, 0, r.err)
        before = self.db_bytes()
        r = self.profan("ingest", out)
        self.assertEqual(r.rc, 6, r.err)     # bad input file (the contract)
        lines = r.err.strip().splitlines()
        self.assertEqual(len(lines), 1, r.err)
        self.assertRegex(lines[0], r"^profan: .*all\.json:\d+: a profan export"
                         r" of several ranks \(distributedInfo\.ranks\):"
                         r" ingest one file per rank \(export-trace --rank R\)$")
        self.assertEqual(self.db_bytes(), before)
        one = os.path.join(self.tmp.name, "r5.json")
        r = self.profan("export-trace", "1", "--rank", "5", "-o", one)
        self.assertEqual(r.rc, 0, r.err)
        self.ingest_ok(one)
        self.assertEqual(self.sql("SELECT DISTINCT rank FROM kernel WHERE"
                                  " run_id = 2"), [{"rank": "5"}])


class ExportLinksTest(ProfanTest):
    """Point 6: the control trace exported whole and ingested again keeps
    every launch link: each kernel and memcpy/memset whose correlation id
    has a runtime call in the JSON is linked to it, in the original
    ingest and in the re-ingested export (745 kernels and 89 memory ops
    had lost theirs), and the ops and steps they hang under stay."""

    def linked(self, db):
        con = sqlite3.connect(db)
        try:
            return {t: con.execute(
                "SELECT count(*), count(runtime_id), count(op_id),"
                " count(step) FROM %s" % t).fetchone()
                for t in ("kernel", "gpu_mem_op")}
        finally:
            con.close()

    def test_hta32_reingested_export_keeps_links(self):
        path = shared("traces", "hta-diff-control-a100-rank3.json.gz")
        evs = events(path)
        want = {"kernel": [0, 0], "gpu_mem_op": [0, 0]}
        for e in evs:
            if isinstance(e, dict) and e.get("ph") == "X" and \
                    str(e.get("cat", "")).lower() in ref.GPU_CATS:
                t = "kernel" if e["cat"].lower() == "kernel" else "gpu_mem_op"
                want[t][0] += 1
        for _, g in launches(evs):
            t = "kernel" if g["cat"].lower() == "kernel" else "gpu_mem_op"
            want[t][1] += 1
        self.assertEqual(want, {"kernel": [8568, 8568],
                                "gpu_mem_op": [882, 882]})
        self.ingest_ok(path)
        first = self.linked(self.db)
        out = os.path.join(self.tmp.name, "whole.json")
        r = self.profan("export-trace", "latest", "-o", out)
        self.assertEqual(r.rc, 0, r.err)
        db2 = os.path.join(self.tmp.name, "again.db")
        self.db, orig = db2, self.db
        self.ingest_ok(out)
        again = self.linked(db2)
        for t in want:
            self.assertEqual(list(first[t][:2]), want[t], t)
            self.assertEqual(list(again[t][:2]), want[t], t)
        self.assertEqual(again, first)
        self.db = orig


class RooflineTiersTest(Hta32Base):
    """Point 5: the hierarchical roofline (L2 and HBM tiers) and durations
    recorded in whole µs, on the roofline-tiers fixture (a V100 run of
    2021's shape): every row's tier, bytes from HBM, efficiency and
    dur_res from the JSON with roofline_reference's rule; none above
    100 %, though the add_ that fits in L2 moves 1.19 TB/s (the HBM roof
    alone reads 112 %) and the mul's recorded 6 µs is under its roof."""

    def expected(self):
        ev = xevents("roofline-tiers.json.gz")
        kern = {e["args"]["correlation"]: e for e in ev if e["cat"] == "kernel"}
        calls = [e for e in ev if e["cat"] == "cuda_runtime"]
        out = {}
        for o in (e for e in ev if e["cat"] == "cpu_op"):
            a = o["args"]
            dims, types = a["Input Dims"], a["Input type"]
            c = next(c for c in calls
                     if o["ts"] <= c["ts"] <= o["ts"] + o["dur"])
            k = kern[c["args"]["correlation"]]
            # whole µs: the file holds no fractional duration
            self.assertEqual(k["dur"], int(k["dur"]))
            if o["name"] == "aten::mm":
                (m, kk), (_, n) = dims
                flops, nbytes = 2 * m * kk * n, (m * kk + kk * n + m * n) * 4
                fp = nbytes
            else:
                nbytes = real_bytes(o["name"], dims, types,
                                    a["Concrete Inputs"])
                flops = written_bytes(o["name"], dims, types) // 4
                fp = footprint(o["name"], dims, types, nbytes)
            roof_ns, tier, bound, hbm = R.roof("V100 SXM2", "fp32", flops,
                                               nbytes, fp)
            gpu_ns = us_to_ns(k["dur"])
            out[(o["name"], json.dumps(dims, separators=(",", ":")))] = {
                "roof": roof_ns, "tier": tier, "bound": bound, "hbm": hbm,
                "gpu": gpu_ns, "bytes": nbytes, "flops": flops,
                "pct": R.pct(roof_ns, gpu_ns, 1)}
        return out

    def test_hta32_roofline_tiers_and_whole_us(self):
        self.ingest_fixture("roofline-tiers.json.gz")
        exp = self.expected()
        rows = {(r["name"], r["dims"]): r for r in self.query("op-roofline")}
        self.assertEqual(set(rows), set(exp))
        for key, r in rows.items():
            e = exp[key]
            msg = "%s %s" % key
            self.assertEqual(r["gpu"], "V100 SXM2", msg)
            self.assertEqual((r["tier"], r["bound"]), (e["tier"], e["bound"]),
                             msg)
            self.assertEqual(r["dur_res"], "whole_us", msg)
            self.assertAlmostEqual(f(r["gbytes"]), e["bytes"] / 1e9,
                                   places=5, msg=msg)
            self.assertAlmostEqual(f(r["hbm_gbytes"]), e["hbm"] / 1e9,
                                   places=5, msg=msg)
            self.assertAlmostEqual(f(r["roofline_pct"]), e["pct"], delta=0.01,
                                   msg=msg)
            self.assertLessEqual(f(r["roofline_pct"]), 100.0, msg)
            self.assertAlmostEqual(f(r["roof_us"]), e["roof"] / 1e3,
                                   delta=1e-3, msg=msg)
        # what the fixture is made of: both tiers, a compute-bound GEMM,
        # an L2-resident add_ faster than HBM allows, a recorded duration
        # under its roofline time (truncated), all within 100 % only
        # with the tiers and the whole-µs slack
        tiers = collections.Counter(e["tier"] for e in exp.values())
        self.assertEqual((tiers["l2"], tiers["hbm"]), (1, 5))
        self.assertEqual([k for k, e in exp.items() if e["bound"] ==
                          "compute"], [("aten::mm", "[[1024,1024],[1024,1024]]")])
        fits = exp[("aten::add_", "[[256,256,3,3],[256,256,3,3],[]]")]
        self.assertGreater(fits["bytes"] / fits["gpu"], 0.9e3 * 1.3)
        short = exp[("aten::mul", "[[1024,1024],[1024,1024]]")]
        self.assertLess(short["gpu"], short["roof"])
        self.assertGreater(short["pct"], 99.0)
        # op-kinds and the GEMM metric: the same roofs over the same
        # times + slack
        kinds = {r["kind"]: r for r in self.query("op-kinds")}
        ew = [e for k, e in exp.items() if k[0] != "aten::mm"]
        self.assertAlmostEqual(
            f(kinds["elementwise"]["roofline_pct"]),
            R.pct(sum(e["roof"] for e in ew), sum(e["gpu"] for e in ew),
                  len(ew)), delta=0.01)
        mm = exp[("aten::mm", "[[1024,1024],[1024,1024]]")]
        m = {r["metric"]: float(r["value"]) for r in self.sql(
            "SELECT metric, value FROM op_metric")}
        self.assertAlmostEqual(m["gemm_efficiency_pct"], mm["pct"], places=3)

    def test_hta32_roofline_without_l2_figures_is_the_hbm_roof(self):
        """A GPU without L2 figures keeps the HBM roof alone, as before
        schema 064: the L2-resident add_ then reads above 100 % (the
        impossible number the tiers remove)."""
        self.ingest_fixture("roofline-tiers.json.gz")
        with sqlite3.connect(self.db) as db:      # a site's edit of the table
            db.execute("UPDATE gpu_spec SET l2_mb = NULL, l2_tbps = NULL"
                       " WHERE gpu = 'V100 SXM2'")
        exp = self.expected()
        rows = {(r["name"], r["dims"]): r for r in self.query("op-roofline")}
        for key, r in rows.items():
            e = exp[key]
            roof = max(e["flops"] / 15.7e3, e["bytes"] / 0.9e3)
            self.assertEqual(r["tier"], "hbm")
            self.assertAlmostEqual(f(r["hbm_gbytes"]), e["bytes"] / 1e9,
                                   places=5)
            self.assertAlmostEqual(f(r["roofline_pct"]),
                                   R.pct(roof, e["gpu"], 1), delta=0.01)
        self.assertGreater(f(rows[("aten::add_", "[[256,256,3,3],"
                                   "[256,256,3,3],[]]")]["roofline_pct"]),
                           100.0)


def step_share_expected(ev):
    """{(kind, name): a_step_pct} of diff-kernels from a trace's JSON:
    each name's GPU time per step over the step time a share is of, the
    longest of the mean CPU step (ProfilerStep annotations), the GPU-side
    span of the GPU ops per step and their summed time per step."""
    cats = {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}
    steps = [us_to_ns(e["dur"]) for e in ev if e.get("ph") == "X"
             and e.get("cat") == "user_annotation"
             and e["name"].startswith("ProfilerStep#")]
    gpu = [e for e in ev if e.get("ph") == "X" and e.get("cat") in cats]
    a = min(us_to_ns(e["ts"]) for e in gpu)
    b = max(us_to_ns(e["ts"]) + us_to_ns(e["dur"]) for e in gpu)
    total = sum(us_to_ns(e["dur"]) for e in gpu)
    n = len(steps)
    d = max(sum(steps) / n, (b - a) / n, total / n)
    per = collections.Counter()
    for e in gpu:
        per[(cats[e["cat"]], e["name"])] += us_to_ns(e["dur"])
    return {k: 100.0 * v / n / d for k, v in per.items()}, \
        {k: 100.0 * v / n / (sum(steps) / n) for k, v in per.items()}


class StepShareTest(Hta32Base):
    """diff-kernels / diff-categories a_step_pct: GPU time per step over a
    step time that contains it (view step_share, schema 067), from the
    JSON; the mean CPU step alone gave 101.9 % (blocked-queue: kernels
    before the first step) and 147 % (MI300X: the GPU 38 ms behind the
    CPU, two streams at once)."""

    def check(self, ev, old_top):
        exp, old = step_share_expected(ev)
        rows = [r for r in self.query("diff-kernels", "--param",
                                      "baseline=1", "--param", "limit=1000")
                if r["status"] != "folded"]
        self.assertGreater(len(rows), 0)
        for r in rows:
            key = (r["kind"], r["name"])
            self.assertAlmostEqual(f(r["a_step_pct"]), exp[key], delta=0.006,
                                   msg=str(key))
            self.assertEqual(r["a_step_pct"], r["b_step_pct"])
            self.assertLessEqual(f(r["a_step_pct"]), 100.0)
        top = max(old.values())
        self.assertAlmostEqual(top, old_top, delta=0.01)
        cats = self.query("diff-categories", "--param", "baseline=1")
        self.assertTrue(all(f(c["a_step_pct"]) <= 100.0 for c in cats))
        return exp

    def test_hta32_step_share_blocked_queue(self):
        self.ingest_fixture("blocked-queue.json.gz")
        exp = self.check(xevents("blocked-queue.json.gz"), 101.93)
        self.assertAlmostEqual(max(exp.values()), 100.0, places=6)

    def test_hta32_step_share_mi300x_gpu_behind(self):
        path = shared("traces", "tracelens-mi300-resnet-ckpt.json.gz")
        self.ingest_ok(path)
        self.check(events(path), 147.04)


class QueueLengthPerRunTest(ProfanTest):
    """hta_queue_length reads only the run asked for: 060's view grouped
    every run's GPU ops (1.39 M VM steps for the 18-event launch-stats run
    with the A100 control beside it, 5,800 alone); 066's searched kernel
    and gpu_mem_op by run; since 070 it reads the stored change points
    (hta_queue_point), since 106 the run's streams (hta_stream) by their
    (run_id, ...) key and each stream's points as a rowid range, since
    111 as the JSON array on that row."""

    def vm_steps(self, run_id):
        con = sqlite3.connect(self.db)
        n = [0]

        def tick():
            n[0] += 1
            return 0
        con.set_progress_handler(tick, 1)
        rows = con.execute("SELECT * FROM hta_queue_length WHERE run_id = ?",
                           (run_id,)).fetchall()
        con.set_progress_handler(None, 1)
        plan = "\n".join(r[-1] for r in con.execute(
            "EXPLAIN QUERY PLAN SELECT * FROM hta_queue_length"
            " WHERE run_id = 1"))
        con.close()
        return n[0], rows, plan

    def test_hta32_queue_length_reads_one_run(self):
        self.ingest_ok(fixture("launch-stats.json.gz"))
        alone, rows, plan = self.vm_steps(1)
        self.assertRegex(plan, r"SEARCH s USING PRIMARY KEY"
                         r" \(run_id=\?\)")
        self.assertRegex(plan, r"SCAN p VIRTUAL TABLE")
        self.assertNotRegex(plan, r"\bSCAN (s|hta_stream|k|m|kernel"
                            r"|gpu_mem_op)\b")
        self.ingest_ok(shared("traces", "hta-diff-control-a100-rank3.json.gz"))
        beside, rows2, _ = self.vm_steps(1)
        self.assertEqual(rows2, rows)
        self.assertLess(beside, 10 * alone)
