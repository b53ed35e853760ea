"""test_op_history.py — the operator model's headline numbers are stored
per run at ingest (op_run_metric, schema 022) and are part of run_metric,
so `trend`, `diff-metrics` and `check` follow GEMM efficiency across runs
without recomputing kernel unions (issue 21).

Six synthetic H100 runs (fixtures/ops/gen_ops.py): one bf16 mm at 50 %
of its roofline (five runs, within 2 % of each other: the history `check`
needs) and then at 25 %; the expected percentages come from the
generator's own durations and the datasheet figures, not from profan.
"""
import os
import sys

from common import ProfanTest, local

sys.path.insert(0, local("ops"))
import gen_ops  # noqa: E402


EFF = (0.5, 0.51, 0.49, 0.505, 0.495, 0.25)


class OpHistoryTest(ProfanTest):

    def setUp(self):
        super().setUp()
        self.want = []
        for i, eff in enumerate(EFF):
            t = gen_ops.gemm_eff(eff)
            p = os.path.join(self.tmp.name, "r%d.pt.trace.json" % i)
            gen_ops.write(t, p)
            self.ingest_ok(p)
            fl, by = gen_ops.mm(2048, 2048, 2048, 2)
            (a, b), = t.gpu["mm"]
            self.want.append(100 * gen_ops.roof_ns(fl, by, "bf16") / (b - a))

    def test_trend_follows_gemm_efficiency(self):
        self.assertAlmostEqual(self.want[0], 50, places=2)
        r = self.profan("--format", "csv", "trend", "gemm_efficiency_pct")
        self.assertEqual(r.rc, 0, r.err)
        got = [float(x["value"]) for x in r.rows()]
        self.assertEqual(len(got), len(EFF))
        for g, w in zip(got, self.want):
            self.assertAlmostEqual(g, w, places=2)

    def test_diff_metrics_and_check(self):
        rows = {x["metric"]: x for x in self.query(
            "diff-metrics", "--param", "baseline=5", run_ref="6")}
        m = rows["gemm_efficiency_pct"]
        self.assertAlmostEqual(float(m["a"]), self.want[4], places=2)
        self.assertAlmostEqual(float(m["b"]), self.want[5], places=2)
        # lower efficiency is worse: the gate fails the last run against
        # a history of five runs near 50 %
        r = self.profan("--format", "csv", "check", "--baseline", "5",
                        "--metric", "gemm_efficiency_pct")
        self.assertEqual(r.rc, 1, r.out + r.err)
        self.assertEqual(r.rows()[0]["verdict"], "regression")

    def test_stored_per_run_and_no_state_left(self):
        # every run has its rows (GEMM time = the generator's kernel), and
        # the derive pass leaves op_target (the runs the *_calc views
        # compute) empty
        rows = self.sql("SELECT run_id, value FROM op_run_metric"
                        " WHERE metric = 'gemm_time_ms' ORDER BY run_id")
        self.assertEqual([int(r["run_id"]) for r in rows],
                         list(range(1, len(EFF) + 1)))
        for r, eff in zip(rows, EFF):
            t = gen_ops.gemm_eff(eff)
            (a, b), = t.gpu["mm"]
            self.assertAlmostEqual(float(r["value"]), (b - a) / 1e6,
                                   places=6)
        self.assertEqual(self.sql("SELECT count(*) AS n FROM op_target"),
                         [{"n": "0"}])
        self.assertEqual(self.sql("SELECT count(*) AS n FROM op_metric_calc"),
                         [{"n": "0"}])

    def test_run_metric_reads_no_raw_table(self):
        # trend over thousands of runs: the op arm of run_metric must be a
        # lookup in the stored table, never a sweep of kernels or ops
        # (unioning op_metric_calc took 9.5 s over 200 runs)
        plan = self.sql("EXPLAIN QUERY PLAN SELECT value FROM run_metric"
                        " WHERE run_id = 2 AND metric = 'gemm_efficiency_pct'")
        text = " ".join(p["detail"] for p in plan)
        self.assertIn("op_run_metric", text)
        for raw in ("kernel", "cpu_op ", "gpu_mem_op", "op_gpu_time"):
            self.assertNotIn("SCAN " + raw, text + " ")
