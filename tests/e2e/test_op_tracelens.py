"""test_op_tracelens.py — the TraceLens agreement of issue 21 on real
traces: GEMM FLOPs per call equal to the formula, the bias add of addmm
included (2MKN + MN), and achieved TFLOP/s within 1 % of an independent
computation that uses the same GEMM time: per call the union of the
kernels and memsets (cuBLAS workspace) it launched.

The oracle links every kernel and memset to its operator the way the
profiler defines it, independently of profan: the runtime call with the
same correlation id, then the innermost cpu_op on that thread whose span
holds the call.
"""
import bisect
import json

from common import ProfanTest, shared, events
from trace_reference import union_ns as union

GEMM = ("aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm")
FIXTURES = (("traces", "tracelens-b200-vllm-rank0.json.gz"),
            ("traces", "hta-diff-control-a100-rank3.json.gz"),
            ("traces", "hta-diff-test-v100-rank1.json.gz"))


def ns(x):
    return int(round(float(x) * 1000))


def gemm_flops(name, dims):
    """2MKN (x B) plus the bias add of addmm / baddbmm."""
    if name in ("aten::mm", "aten::bmm"):
        a, b = dims[0], dims[1]
    else:
        a, b = dims[1], dims[2]
    bb = a[0] if name in ("aten::bmm", "aten::baddbmm") else 1
    m, k, n = a[-2], a[-1], b[-1]
    bias = {"aten::addmm": m * n, "aten::baddbmm": bb * m * n}.get(name, 0)
    return 2 * bb * m * k * n + bias


def link(ev):
    """{cpu_op index: [(start, end)]} of the kernels and memsets each
    op launched (innermost op enclosing the launching runtime call)."""
    ops = [e for e in ev if e.get("cat") == "cpu_op"]
    by_tid = {}
    for i, e in enumerate(ops):
        by_tid.setdefault((e["pid"], e["tid"]), []).append(
            (ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), i))
    for v in by_tid.values():
        v.sort()
    starts = {k: [a for a, _, _ in v] for k, v in by_tid.items()}
    rt = {e["args"]["correlation"]: e for e in ev
          if e.get("cat") in ("cuda_runtime", "cuda_driver")
          and "correlation" in e.get("args", {})}
    out = {}
    for e in ev:
        if e.get("cat") not in ("kernel", "gpu_memset"):
            continue
        r = rt.get(e.get("args", {}).get("correlation"))
        if r is None:
            continue
        key, t = (r["pid"], r["tid"]), ns(r["ts"])
        v = by_tid.get(key, [])
        j = bisect.bisect_right(starts.get(key, []), t) - 1
        while j >= 0 and v[j][1] < t:
            j -= 1
        # the latest-starting op that holds t is the innermost
        best = None
        for a, b, i in reversed(v[:j + 1]):
            if b >= t:
                best = i
                break
            if a < t - 10_000_000_000:
                break
        if best is not None:
            a = ns(e["ts"])
            out.setdefault(best, []).append((a, a + ns(e["dur"])))
    return ops, out


class TraceLensAgreement(ProfanTest):

    def check(self, parts):
        path = shared(*parts)
        self.ingest_ok(path)
        ops, gpu = link(events(path))
        want = {}
        for i, o in enumerate(ops):
            d = o.get("args", {}).get("Input Dims")
            if o["name"] not in GEMM or not d or i not in gpu:
                continue
            key = (o["name"], json.dumps(d, separators=(",", ":")))
            f, t, n = want.get(key, (0, 0, 0))
            want[key] = (f + gemm_flops(o["name"], d), t + union(gpu[i]),
                         n + 1)
        self.assertGreater(len(want), 0)
        rows = {(r["name"], r["dims"]): r for r in self.query(
            "op-roofline", "--param", "limit=100000")
            if r["name"] in GEMM}
        got = {}
        for r in self.sql("SELECT name, dims, sum(flops) AS f,"
                          " sum(gpu_ns) AS t, count(*) AS n"
                          " FROM op_roofline_call WHERE kind GLOB 'gemm*'"
                          " GROUP BY name, dims"):
            got[(r["name"], r["dims"])] = r
        self.assertEqual(set(got), set(want))
        for key, (f, t, n) in want.items():
            with self.subTest(op=key):
                g = got[key]
                self.assertEqual(int(g["n"]), n)
                self.assertEqual(float(g["f"]), float(f))      # per formula
                self.assertAlmostEqual(int(g["t"]) / t, 1, delta=1e-9)
                if key in rows and float(rows[key]["tflops"]) > 0:
                    self.assertAlmostEqual(
                        float(rows[key]["tflops"]) / (f / t / 1e3), 1,
                        delta=0.01)

    def test_b200_vllm(self):
        self.check(FIXTURES[0])

    def test_a100_with_cublas_memsets(self):
        self.check(FIXTURES[1])

    def test_v100(self):
        self.check(FIXTURES[2])
