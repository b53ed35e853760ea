"""test_op_model.py — the per-operator performance model (issue 21).

A synthetic one-rank H100 trace with known shapes and durations (written
here, deterministic): a bf16 addmm whose kernel and cuBLAS workspace memset
take exactly twice its roofline time (50 %), an fp32 mm whose two kernels
overlap (programmatic dependent launch), a bmm, a layer norm, an unknown
op, an addmm whose shapes do not fit the formula, a kernel whose launch
lies outside the trace, and copies hidden, half hidden and exposed.  Every expected number is computed below from the
events this file writes and from the datasheet figures it states, never
from profan's output.  The B200 fixture checks the kernel union and the
GEMM formula on a real trace.
"""
import gzip
import json
import math
import os
import re
import unittest

from common import ProfanTest, shared, events
from trace_reference import union_ns as union
import roofline_reference as R

# H100 SXM, dense (NVIDIA H100 datasheet): TFLOP/s and TB/s
H100 = {"bf16": 989.4, "fp32": 67.0, "bw": 3.35}
BASE = 1767189312000000000


def us(ns):
    return float("%d.%03d" % (ns // 1000, ns % 1000))


class Trace:
    """Builds the synthetic trace; remembers what each op launched."""

    def __init__(self):
        self.ev, self.corr, self.ext = [], 500, 0
        self.gpu = {}          # op name -> [(start, end)] of its GPU work
        self.unlaunched = []

    def op(self, name, ts, dur, dims, types, concrete=None):
        self.ext += 1
        a = {"External id": self.ext, "Input Dims": dims, "Input type": types}
        if concrete is not None:
            a["Concrete Inputs"] = concrete
        self.ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 10,
                        "tid": 10, "ts": us(ts), "dur": us(dur), "args": a})
        return self.ext

    def launch(self, name, ext, ts, kname, kts, kdur, cat="kernel"):
        self.corr += 1
        rt = {"kernel": "cudaLaunchKernel", "gpu_memset": "cudaMemsetAsync",
              "gpu_memcpy": "cudaMemcpyAsync"}
        self.ev.append({"ph": "X", "cat": "cuda_runtime", "name": rt[cat],
                        "pid": 10, "tid": 10, "ts": us(ts), "dur": us(1000),
                        "args": {"External id": ext, "correlation": self.corr}})
        a = {"External id": ext, "device": 0, "stream": 7,
             "correlation": self.corr}
        if cat in ("gpu_memset", "gpu_memcpy"):
            a["bytes"] = 4096
        self.ev.append({"ph": "X", "cat": cat, "name": kname, "pid": 0,
                        "tid": 7, "ts": us(kts), "dur": us(kdur), "args": a})
        self.gpu.setdefault(name, []).append((kts, kts + kdur))

    def doc(self):
        return {"schemaVersion": 1, "baseTimeNanoseconds": BASE,
                "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3",
                                      "totalGlobalMem": 85029158912,
                                      "computeMajor": 9, "computeMinor": 0,
                                      "numSms": 132}],
                "traceEvents": self.ev}


def addmm_model(m, k, n):
    flops = 2 * m * k * n + m * n
    return flops, (m * k + k * n + m * n + n) * 2


def build():
    t = Trace()
    # a kernel launched before the CPU window: no runtime event
    t.corr += 1
    t.ev.append({"ph": "X", "cat": "kernel", "name": "early_kernel", "pid": 0,
                 "tid": 7, "ts": us(1_000_000), "dur": us(3_333),
                 "args": {"device": 0, "stream": 7, "correlation": 1}})
    t.unlaunched.append(3_333)
    # bf16 addmm at exactly 50 % of its (compute) roofline
    m = k = n = 4096
    flops, nbytes = addmm_model(m, k, n)
    roof = max(flops / (H100["bf16"] * 1e3), nbytes / (H100["bw"] * 1e3))
    target = round(2 * roof)
    e = t.op("aten::addmm", 2_000_000, 400_000, [[n], [m, k], [k, n], [], []],
             ["c10::BFloat16"] * 3 + ["Scalar", "Scalar"])
    t.launch("aten::addmm", e, 2_001_000, "Memset (Device)", 2_010_000, 2_000,
             "gpu_memset")
    t.launch("aten::addmm", e, 2_003_000, "sm90_xmma_gemm_bf16bf16_bf16f32",
             2_012_000, target - 2_000)
    # fp32 mm, two overlapping kernels
    e = t.op("aten::mm", 3_000_000, 50_000, [[512, 1024], [1024, 256]],
             ["float", "float"])
    t.launch("aten::mm", e, 3_001_000, "gemm_part1", 3_010_000, 10_000)
    t.launch("aten::mm", e, 3_002_000, "gemm_part2", 3_016_000, 8_000)
    # bf16 bmm
    e = t.op("aten::bmm", 3_100_000, 50_000, [[8, 128, 64], [8, 64, 128]],
             ["c10::BFloat16"] * 2)
    t.launch("aten::bmm", e, 3_101_000, "bmm_kernel", 3_110_000, 5_000)
    # a layer norm, an unknown op, an addmm whose shapes do not fit
    e = t.op("aten::layer_norm", 3_200_000, 20_000, [[64, 1024]], ["float"])
    t.launch("aten::layer_norm", e, 3_201_000, "ln_kernel", 3_210_000, 7_000)
    e = t.op("mylib::frobnicate", 3_300_000, 20_000, [[4]], ["float"])
    t.launch("mylib::frobnicate", e, 3_301_000, "frob", 3_310_000, 4_000)
    e = t.op("aten::addmm", 3_400_000, 20_000, [[4], [3, 5], [7, 2], [], []],
             ["float"] * 3 + ["Scalar", "Scalar"])
    t.launch("aten::addmm#bad", e, 3_401_000, "gemm_bad", 3_410_000, 6_000)
    # causal flash attention under scaled_dot_product_attention (the
    # kernel belongs to the inner op)
    q = [2, 8, 1024, 64]
    t.op("aten::scaled_dot_product_attention", 3_600_000, 60_000,
         [q, q, q, [], [], [], [], []], ["c10::BFloat16"] * 3 + [""] * 5,
         ["", "", "", "", "0.", "True", "", "False"])
    e = t.op("aten::_scaled_dot_product_flash_attention", 3_605_000, 50_000,
             [q, q, q, [], [], [], []], ["c10::BFloat16"] * 3
             + ["Scalar", "Scalar", "Scalar", ""],
             ["", "", "", "0.", "True", "False", ""])
    t.launch("sdpa", e, 3_606_000, "flash_fwd_kernel", 3_610_000, 40_000)
    # copies: one hidden under the addmm kernel, one half under the mm
    # kernels, two overlapping each other with no kernel running
    for i, (a, d) in enumerate(((2_100_000, 10_000), (3_014_000, 16_000),
                                (3_500_000, 20_000), (3_510_000, 20_000))):
        e = t.op("aten::copy_", a - 5_000, 3_000, [[1024], [1024], []],
                 ["float", "float", "Scalar"])
        t.launch("copy#%d" % i, e, a - 4_000, "Memcpy DtoD (Device -> Device)",
                 a, d, "gpu_memcpy")
    return t, target


class OpModelTest(ProfanTest):

    def setUp(self):
        super().setUp()
        self.t, self.target = build()
        self.path = os.path.join(self.tmp.name, "h100.pt.trace.json.gz")
        with gzip.open(self.path, "wt") as f:
            json.dump(self.t.doc(), f)
        self.ingest_ok(self.path)

    def test_op_roofline_gemm_at_half_of_peak(self):
        rows = {r["name"] + r["dims"]: r for r in
                self.query("op-roofline", "--param", "limit=100")}
        r = rows["aten::addmm[[4096],[4096,4096],[4096,4096],[],[]]"]
        flops, nbytes = addmm_model(4096, 4096, 4096)
        gpu_ns = union(self.t.gpu["aten::addmm"])
        self.assertEqual(gpu_ns, self.target)       # memset + kernel
        self.assertEqual(r["gpu"], "H100 SXM")
        self.assertAlmostEqual(float(r["gflop"]), flops / 1e9, places=3)
        self.assertAlmostEqual(float(r["gbytes"]), nbytes / 1e9, places=5)
        self.assertEqual(r["bound"], "compute")
        # 100 MB of tensors do not fit in H100's 50 MB L2: the HBM tier
        self.assertEqual(r["tier"], "hbm")
        self.assertEqual(r["dur_res"], "ns")
        self.assertAlmostEqual(float(r["hbm_gbytes"]),
                               (nbytes - 50 * 2**20) / 1e9, places=5)
        self.assertAlmostEqual(float(r["roofline_pct"]), 50.0, places=1)
        self.assertAlmostEqual(float(r["tflops"]), flops / gpu_ns / 1e3,
                               places=2)
        self.assertAlmostEqual(float(r["recoverable_ms"]),
                               gpu_ns / 2 / 1e6, places=3)
        # fp32 mm: the overlapping kernels count once
        r = rows["aten::mm[[512,1024],[1024,256]]"]
        gpu_ns = union(self.t.gpu["aten::mm"])
        self.assertEqual(gpu_ns, 14_000)
        self.assertAlmostEqual(float(r["gpu_ms"]), 0.014, places=4)
        fl = 2 * 512 * 1024 * 256
        by = (512 * 1024 + 1024 * 256 + 512 * 256) * 4
        roof, tier, bound, _ = R.roof("H100 SXM", "fp32", fl, by)
        self.assertEqual((r["tier"], r["bound"]), (tier, bound))
        self.assertEqual((tier, r["hbm_gbytes"]), ("l2", "0.0"))
        self.assertAlmostEqual(float(r["roofline_pct"]),
                               100 * roof / gpu_ns, places=1)
        self.assertAlmostEqual(float(r["intensity"]), fl / by, places=1)
        # bmm: 2BMKN
        r = rows["aten::bmm[[8,128,64],[8,64,128]]"]
        self.assertAlmostEqual(float(r["gflop"]),
                               2 * 8 * 128 * 64 * 128 / 1e9, places=4)
        # layer norm, a streaming kind: 5 FLOPs per element, the input
        # read and the output written once (fp32, memory bound on H100)
        r = rows["aten::layer_norm[[64,1024]]"]
        n = 64 * 1024
        gpu_ns = union(self.t.gpu["aten::layer_norm"])
        self.assertAlmostEqual(float(r["gflop"]), 5 * n / 1e9, delta=6e-5)
        self.assertAlmostEqual(float(r["gbytes"]), 2 * n * 4 / 1e9, places=6)
        self.assertEqual(r["bound"], "memory")
        roof, tier, _, _ = R.roof("H100 SXM", "fp32", 5 * n, 2 * n * 4)
        self.assertEqual(r["tier"], tier)
        self.assertAlmostEqual(float(r["roofline_pct"]),
                               100 * roof / gpu_ns, places=1)
        # causal attention: 2BHLS(D+Dv) / 2; q, k, v and the output once
        r = rows["aten::_scaled_dot_product_flash_attention"
                 "[[2,8,1024,64],[2,8,1024,64],[2,8,1024,64],[],[],[],[]]"]
        fl = 2 * 2 * 8 * 1024 * 1024 * (64 + 64) / 2
        by = 4 * 2 * 8 * 1024 * 64 * 2
        self.assertAlmostEqual(float(r["gflop"]), fl / 1e9, places=3)
        self.assertAlmostEqual(float(r["gbytes"]), by / 1e9, places=5)
        roof, tier, bound, _ = R.roof("H100 SXM", "bf16", fl, by)
        self.assertEqual((r["tier"], r["bound"]), (tier, bound))
        self.assertAlmostEqual(float(r["roofline_pct"]),
                               100 * roof / 40_000, places=1)
        # device-to-device copies are modeled (copy kind, memory bound);
        # their GPU time is the memcpy each launched
        r = rows["aten::copy_[[1024],[1024],[]]"]
        cp = sum(union(v) for n, v in self.t.gpu.items()
                 if n.startswith("copy#"))
        self.assertEqual(r["calls"], "4")
        self.assertAlmostEqual(float(r["gpu_ms"]), cp / 1e6, places=4)
        self.assertEqual(r["bound"], "memory")
        # the addmm whose shapes do not fit is not modeled, nor the
        # unknown op; the outer SDPA op launched nothing itself
        self.assertEqual(len(rows), 6)

    def test_op_kinds_union_and_unknown(self):
        rows = {r["kind"]: r for r in self.query("op-kinds")}
        g = self.t.gpu
        gemm = (union(g["aten::addmm"]) + union(g["aten::mm"])
                + union(g["aten::addmm#bad"]))
        summed = sum(b - a for n in ("aten::addmm", "aten::mm",
                                     "aten::addmm#bad") for a, b in g[n])
        self.assertAlmostEqual(float(rows["gemm"]["gpu_ms"]), gemm / 1e6,
                               places=4)
        self.assertAlmostEqual(float(rows["gemm"]["summed_ms"]), summed / 1e6,
                               places=4)
        self.assertEqual(rows["gemm"]["calls"], "3")
        self.assertEqual(rows["gemm"]["modeled_calls"], "2")
        self.assertEqual(rows["gemm_batched"]["modeled_calls"], "1")
        self.assertEqual(rows["norm"]["calls"], "1")
        self.assertEqual(rows["unknown"]["ops"], "1")
        self.assertAlmostEqual(float(rows["unknown"]["gpu_ms"]), 0.004,
                               places=4)
        self.assertEqual(rows["norm"]["modeled_calls"], "1")
        self.assertEqual(rows["attention_fwd"]["calls"], "1")
        self.assertEqual(rows["attention_fwd"]["modeled_calls"], "1")
        self.assertEqual(rows["unknown"]["roofline_pct"], "")

    def test_op_metric(self):
        m = {r["metric"]: float(r["value"]) for r in
             self.sql("SELECT metric, value FROM op_metric")}
        g, roof, gpu = self.t.gpu, 0.0, 0
        calls = [("aten::addmm", addmm_model(4096, 4096, 4096), "bf16"),
                 ("aten::mm", (2 * 512 * 1024 * 256,
                               (512 * 1024 + 1024 * 256 + 512 * 256) * 4),
                  "fp32"),
                 ("aten::bmm", (2 * 8 * 128 * 64 * 128,
                                8 * (128 * 64 + 64 * 128 + 128 * 128) * 2),
                  "bf16")]
        for name, (fl, by), dt in calls:
            roof += R.roof("H100 SXM", dt, fl, by)[0]
            gpu += union(g[name])
        self.assertAlmostEqual(m["gemm_efficiency_pct"], 100 * roof / gpu,
                               places=2)
        self.assertAlmostEqual(m["gemm_time_ms"], gpu / 1e6, places=5)
        self.assertAlmostEqual(m["gemm_recoverable_ms"], (gpu - roof) / 1e6,
                               places=4)
        # exposed copy time: |copies ∪ kernels| - |kernels|
        kern = [iv for n, ivs in g.items() if not n.startswith("copy#")
                for iv in ivs] + [(1_000_000, 1_003_333)]
        copies = [iv for n, ivs in g.items() if n.startswith("copy#")
                  for iv in ivs]
        exposed = union(kern + copies) - union(kern)
        self.assertEqual(exposed, 6_000 + 30_000)
        self.assertAlmostEqual(m["exposed_memcpy_ms"], exposed / 1e6, places=6)
        x = self.sql("SELECT memcpy_ns, exposed_ns FROM memcpy_exposed")
        self.assertEqual(x, [{"memcpy_ns": str(union(copies)),
                              "exposed_ns": str(exposed)}])
        self.assertEqual(m["kernels_without_launch"], 1)
        self.assertAlmostEqual(m["kernels_without_launch_ms"],
                               sum(self.t.unlaunched) / 1e6, places=6)


    def test_roofline_chart_in_the_report(self):
        html = os.path.join(self.tmp.name, "r.html")
        r = self.profan("report", "--html", html)
        self.assertEqual(r.rc, 0, r.err)
        with open(html, encoding="utf-8") as f:
            page = f.read()
        i = page.index('<section id="roofline"')
        sec = page[i:page.index("</section>", i)]
        self.assertIn('href="#roofline"', page)
        rows = self.query("op-roofline")
        pts = re.findall(r'<circle class="pt[^"]*" cx="([\d.]+)" cy="([\d.]+)"'
                         r'[^>]*><title>(\d+)\. ([^<]*)</title>', sec)
        drawable = [x for x in rows if float(x["intensity"] or 0) > 0
                    and float(x["tflops"] or 0) > 0]
        self.assertEqual(len(pts), len(drawable))
        self.assertEqual(len(pts), 5)           # copies: 0 FLOPs, no point
        # point N is table row N
        for cx, cy, no, title in pts:
            row = rows[int(no) - 1]
            self.assertTrue(title.startswith(row["name"] + " " + row["dims"]),
                            title)
        # one roofline per GPU and type: H100 SXM bf16 and fp32, each
        # with its HBM ceiling and its L2 ceiling (dashed)
        roofs = re.findall(r'<polyline class="ln roof[^"]*"'
                           r'(?: stroke-dasharray="[^"]*")? points="([^"]*)">'
                           r'<title>([^<]*)</title>', sec)
        self.assertEqual(sorted(t for _, t in roofs),
                         ["H100 SXM bf16", "H100 SXM bf16 L2",
                          "H100 SXM fp32", "H100 SXM fp32 L2"])
        self.assertEqual(len(re.findall(r'stroke-dasharray="6 4" points=',
                                        sec)), 2)
        # the 50 % addmm sits log10(2) decades under the bf16 ceiling
        ticks = {float(v): float(y) for y, v in re.findall(
            r'<line class="grid" x1="70.0" y1="([\d.]+)"[^>]*/>\n<text[^>]*'
            r'text-anchor="end">([\d.e+]+)</text>', sec)}
        ppd = ticks[1.0] - ticks[10.0]          # pixels per decade
        ceil_y = float([p for p, t in roofs if t == "H100 SXM bf16"][0]
                       .split()[-1].split(",")[1])
        y = [float(cy) for _, cy, _, t in pts
             if t.startswith("aten::addmm [[4096]")][0]
        self.assertAlmostEqual((y - ceil_y) / ppd, math.log10(2), delta=0.01)


class OpModelFixtureTest(ProfanTest):

    def test_b200_kernel_union_and_gemm_formula(self):
        path = shared("traces", "tracelens-b200-vllm-rank0.json.gz")
        self.ingest_ok(path)
        ev = events(path)
        # independent: kernels per External id of each cpu_op, unioned
        ops = {e["args"]["External id"]: e for e in ev
               if e.get("cat") == "cpu_op" and "External id" in e.get("args", {})}
        kern = {}
        for e in ev:
            if e.get("cat") == "kernel" and "External id" in e.get("args", {}):
                a = int(round(float(e["ts"]) * 1000))
                kern.setdefault(e["args"]["External id"], []).append(
                    (a, a + int(round(float(e["dur"]) * 1000))))
        moe = [x for x, o in ops.items() if o["name"] == "vllm::moe_forward"
               and x in kern]
        want_union = sum(union(kern[x]) for x in moe)
        want_sum = sum(b - a for x in moe for a, b in kern[x])
        self.assertGreater(want_sum - want_union, 0)    # they do overlap
        rows = {r["kind"]: r for r in self.query("op-kinds")}
        self.assertAlmostEqual(float(rows["moe"]["gpu_ms"]), want_union / 1e6,
                               delta=0.002)
        self.assertAlmostEqual(float(rows["moe"]["summed_ms"]), want_sum / 1e6,
                               delta=0.002)
        # GEMM FLOPs per call: 2MKN + MN for every addmm with its shapes
        want = 0
        for o in ops.values():
            if o["name"] == "aten::addmm":
                bias, a, b = o["args"]["Input Dims"][:3]
                want += 2 * a[0] * a[1] * b[1] + a[0] * b[1]
        # op_model: per call (op_gemm, an arm, models the signatures an
        # ingest adds, schema 027)
        got = self.sql("SELECT sum(flops) AS f FROM op_model"
                       " WHERE name = 'aten::addmm'")
        self.assertAlmostEqual(float(got[0]["f"]) / want, 1.0, places=9)


    def test_one_model_row_a_signature(self):
        # op-roofline reads a call's modeled values once per (signature,
        # gpu, peak): op_sig_model's arms model disjoint operators
        self.ingest_ok(shared("traces", "tracelens-b200-vllm-rank0.json.gz"))
        self.ingest_ok(shared("traces", "kineto-resnet50-2021.pt.trace.json.gz"))
        got = self.sql("SELECT count(*) AS n, count(DISTINCT sig_id) AS d,"
                       " count(DISTINCT kind) AS k FROM op_sig_model")[0]
        self.assertGreater(int(got["k"]), 3)
        self.assertEqual(got["n"], got["d"])

if __name__ == "__main__":
    unittest.main()
