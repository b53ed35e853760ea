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

import hta_reference as ref
from common import ProfanTest, ROOT, local, shared, events

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
