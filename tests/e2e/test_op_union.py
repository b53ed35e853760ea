"""test_op_union.py — `operators` and `diff-ops` count the GPU time of an
operator call as the union of the intervals of the kernels, memcpys and
memsets it launched (issue 21: on the B200 vLLM trace 74 kernels overlap
on one stream, programmatic dependent launch, and the plain sum made
vllm::moe_forward about 69 µs too long).

The oracle reads the trace JSON here: every GPU record carries the
External id of the innermost operator enclosing its launch; per operator
call the union of its records' [ts, ts+dur), summed per operator name.
"""
import unittest

from common import ProfanTest, shared, events
from trace_reference import union_ns as union

B200 = ("traces", "tracelens-b200-vllm-rank0.json.gz")
GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")


def ns(x):
    return int(round(float(x) * 1000))


def per_name(path):
    """{op name: (union ns, summed ns, records)} from the trace itself."""
    ev = events(path)
    name = {e["args"]["External id"]: e["name"] for e in ev
            if e.get("cat") == "cpu_op"
            and "External id" in e.get("args", {})}
    calls = {}
    for e in ev:
        x = e.get("args", {}).get("External id")
        if e.get("cat") in GPU_CATS and x in name:
            a = ns(e["ts"])
            calls.setdefault(x, []).append((a, a + ns(e["dur"])))
    out = {}
    for x, iv in calls.items():
        u, s, n = out.get(name[x], (0, 0, 0))
        out[name[x]] = (u + union(iv), s + sum(b - a for a, b in iv),
                        n + len(iv))
    return out


class OpUnionTest(ProfanTest):

    def setUp(self):
        super().setUp()
        self.path = shared(*B200)
        self.ingest_fixture(self.path)
        self.want = per_name(self.path)

    def test_operators_gpu_time_is_the_union(self):
        rows = {r["name"]: r for r in self.query(
            "operators", "--param", "order=gpu", "--param", "limit=1000")}
        u, s, n = self.want["vllm::moe_forward"]
        # the overlap the issue reports: about 69 µs on moe_forward
        self.assertAlmostEqual((s - u) / 1e3, 69, delta=1.5)
        self.assertAlmostEqual(float(rows["vllm::moe_forward"]["gpu_ms"]),
                               u / 1e6, places=3)
        self.assertEqual(int(rows["vllm::moe_forward"]["kernels"]), n)
        for nm, (u, s, n) in self.want.items():
            with self.subTest(op=nm):
                self.assertAlmostEqual(float(rows[nm]["gpu_ms"]), u / 1e6,
                                       places=3)
                self.assertEqual(int(rows[nm]["kernels"]), n)
        # every op with GPU work is in the oracle and the other way round
        self.assertEqual({k for k, r in rows.items() if int(r["kernels"])},
                         set(self.want))

    def test_diff_ops_gpu_time_is_the_union(self):
        # the same trace against itself: both columns equal the union per
        # step (the step count is the run's, read from the database)
        rows = {r["name"]: r for r in self.query(
            "diff-ops", "--param", "baseline=latest", "--param", "limit=1000",
            "--param", "floor_pct=0")}
        steps = int(self.sql("SELECT max(count(*), 1) AS n FROM step")[0]["n"])
        for nm, (u, s, n) in self.want.items():
            with self.subTest(op=nm):
                self.assertAlmostEqual(float(rows[nm]["b_gpu_ms"]) * steps,
                                       u / 1e6, delta=2e-4 * steps)
                self.assertEqual(rows[nm]["a_gpu_ms"], rows[nm]["b_gpu_ms"])
        u, s, _ = self.want["vllm::moe_forward"]
        self.assertLess(abs(float(rows["vllm::moe_forward"]["b_gpu_ms"])
                            * steps - u / 1e6), (s - u) / 1e6 / 4)


if __name__ == "__main__":
    unittest.main()
