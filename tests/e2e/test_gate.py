"""test_gate.py — the regression gate (`profan check`) on scenarios with a
known truth, built from the real hta-diff-control trace by
gate_scenarios.py (steps stretched by a chosen factor, step noise of a
known size, unrelated fixtures in the same database), and the failures
of issue 13 reproduced: warm-up steps hiding a 20 % slowdown, unrelated
runs deciding the verdict, an NCCL log passing as OK, exit codes.

The truth comes from the construction (the factors written), never from
profan's output.  The short seeded grid here runs in CI; the whole matrix
is scripts/gate-scenarios.sh.
"""
import json
import os
import random
import statistics
import subprocess
import time
import unittest

import common
import gate_scenarios as gs
from common import ProfanTest, shared

_TPL = {}


def template(thin):
    """The scenario template, loaded once per module (a few seconds)."""
    if thin not in _TPL:
        _TPL[thin] = gs.Template(shared(*gs.TEMPLATE), thin=thin)
    return _TPL[thin]


class GateTest(ProfanTest):

    def write(self, name, factors, thin=True, **kw):
        path = os.path.join(self.tmp.name, name + ".json")
        template(thin).write(path, factors, name, **kw)
        return path

    def ingest_as(self, name, path):
        self.ingest_ok(path, extra=["--name", name, "--quiet"])

    def check(self, *args, fmt="json"):
        return self.profan("--format", fmt, "check", *args)

    def unrelated(self):
        for i, parts in enumerate(gs.UNRELATED):
            self.ingest_as("unrelated%d" % i, shared(*parts))


class IssueFailures(GateTest):

    def test_warmup_steps_no_longer_hide_a_20pct_slowdown(self):
        """5 steps, the first two warm-up (37 % and 75 % of the median),
        every duration of the copy stretched by 1.2."""
        tpl = template(False)
        nat = [d / tpl.median for d in tpl.D[2:5]]       # real steps 3..5
        base = [0.37, 0.75] + nat
        self.ingest_as("base", self.write("base", base, thin=False))
        self.ingest_as("slow", self.write("slow", [f * 1.2 for f in base],
                                          thin=False))
        # the steps query marks the two warm-up steps
        rows = self.query("steps", run_ref="slow")
        self.assertEqual([(r["steady"], r["reason"]) for r in rows],
                         [("0", "warm-up"), ("0", "warm-up"), ("1", ""),
                          ("1", ""), ("1", "")])
        # the view is plain SQL: the stock sqlite3 shell reads it
        out = subprocess.run(
            ["sqlite3", self.db, "SELECT group_concat(x, ' ') FROM (SELECT"
             " steady || reason AS x FROM step_steady WHERE run_id = 2"
             " ORDER BY ts)"],
            capture_output=True, text=True, check=True).stdout
        self.assertEqual(out.strip(), "0warm-up 0warm-up 1 1 1")
        # step statistics over the steady steps only
        want = statistics.median(tpl.median * f * 1.2 for f in nat) / 1e3
        m = {x["metric"]: float(x["value"])
             for x in self.query("run-metrics", run_ref="slow")}
        self.assertAlmostEqual(m["step_time_median_ms"], want, places=3)
        self.assertEqual(m["steps"], 5)
        self.assertEqual(m["steady_steps"], 3)
        r = self.check("--run", "slow", "--baseline", "base")
        self.assertEqual(r.rc, 1, r.err)
        self.assertTrue(r.err.startswith("REGRESSION: run 2 vs baseline 1: "
                                         "step_time_median_ms +20.00%"),
                        r.err)
        row = r.json()[0]
        self.assertEqual(row["verdict"], "regression")
        self.assertAlmostEqual(row["shift_pct"], 20.0, places=2)
        self.assertEqual((row["n_baseline"], row["n_run"]), (3, 3))
        self.assertGreater(row["shift_lo_pct"], 0)
        # 3 against 3 steps have no interval at --alpha 0.01 (the exact
        # P(U = 0) is 1/20): inconclusive, exit 5
        r = self.check("--run", "slow", "--baseline", "base", "--alpha",
                       "0.01")
        self.assertEqual(r.rc, 5, r.err)
        row = r.json()[0]
        self.assertEqual(row["verdict"], "inconclusive")
        self.assertIsNone(row["shift_hi_pct"])

    def test_unrelated_runs_do_not_decide(self):
        """Baseline: the real hta-diff-control trace; run: the same trace
        with every duration 49 % longer; five unrelated fixtures ingested
        before: REGRESSION, as in a fresh database."""
        tpl = template(False)
        slow = [d / tpl.median * 1.49 for d in tpl.D]
        path = self.write("slow", slow, thin=False)
        verdicts = []
        for fresh in (False, True):
            if fresh:
                self.tearDown()
                self.setUp()
                path = self.write("slow", slow, thin=False)
            else:
                self.unrelated()
            self.ingest_as("control", shared(*gs.TEMPLATE))
            self.ingest_as("slow", path)
            r = self.check("--run", "slow", "--baseline", "control")
            self.assertEqual(r.rc, 1, r.err)
            row = r.json()[0]
            self.assertAlmostEqual(row["shift_pct"], 49.0, places=1)
            verdicts.append(row["verdict"])
            lines = r.err.splitlines()
            base_id = 6 if not fresh else 1
            self.assertEqual(lines[1], "history: 1 comparable run (%d); the"
                             " noise test needs 5" % base_id, r.err)
            left = [x for x in lines if x.startswith("left out:")]
            if fresh:
                self.assertEqual(left, [])
            else:
                self.assertEqual(len(left), 5, r.err)
                self.assertIn("left out: run 2 unrelated1: top kernels:",
                              r.err)
        self.assertEqual(verdicts, ["regression", "regression"])

    def test_nccl_log_only_is_not_ok(self):
        self.ingest_as("base", self.write("base", [1.0] * 4))
        self.ingest_as("nccl", shared("nccl", "ddp-2rank-interleaved.log"))
        r = self.check("--run", "nccl", "--baseline", "base", fmt="table")
        self.assertEqual(r.rc, 4, r.out + r.err)
        self.assertNotIn("OK", r.out.splitlines()[0])
        self.assertTrue(r.out.startswith("NOT COMPARABLE: run 2 vs baseline "
                                         "1: step_time_median_ms: not the "
                                         "baseline's workload: ranks "),
                        r.out)
        self.assertTrue(r.out.splitlines()[0].endswith("; nothing to check"))
        r = self.check("--run", "nccl", "--baseline", "base",
                       "--allow-missing", fmt="table")
        self.assertEqual(r.rc, 0, r.out + r.err)
        self.assertTrue(r.out.splitlines()[0].endswith(
            "(allowed by --allow-missing)"), r.out)
        self.assertNotIn("OK:", r.out)
        # the run against itself: comparable, but nothing to measure
        r = self.check("--run", "nccl", "--baseline", "nccl", fmt="table")
        self.assertEqual(r.rc, 4, r.out + r.err)
        self.assertTrue(r.out.startswith("MISSING: run 2 vs baseline 2: "
                                         "step_time_median_ms: no value in "
                                         "the baseline nor the run; nothing "
                                         "to check"), r.out)

    def test_exit_codes_and_messages(self):
        self.ingest_as("base", self.write("base", [1.0] * 4))
        self.ingest_as("run", self.write("run", [1.0] * 4))
        usage = "usage: profan check --baseline B [--run R] [--metric M]..."

        def bad(args, msg):
            r = self.profan("check", *args)
            self.assertEqual(r.rc, 2, (args, r.err))
            self.assertEqual(r.err.splitlines()[0], "profan: " + msg, args)
            self.assertIn(usage, r.err)

        def unknown(args, msg):
            # an unknown name: one line, as every command says it
            r = self.profan("check", *args)
            self.assertEqual((r.rc, r.err), (2, "profan: " + msg + "\n"))

        unknown(["--baseline", "nope"], "no run 'nope' (give an id, a name,"
                " or 'latest'; 'profan runs' lists them)")
        unknown(["--baseline", "base", "--run", "typo"], "no run 'typo'"
                " (give an id, a name, or 'latest'; 'profan runs' lists"
                " them)")
        bad(["--baseline", "base", "--alpha", "0.7"], "--alpha needs a "
            "number between 0 and 0.5, got '0.7'")
        bad(["--baseline", "base", "--alpha", "abc"], "--alpha needs a "
            "number >= 0, got 'abc'")
        bad(["--baseline", "base", "--z", "0"], "--z needs a number > 0, "
            "got '0'")
        bad(["--baseline", "base", "--threshold", "5x"], "--threshold needs"
            " a number >= 0, got '5x'")
        unknown(["--baseline", "base", "--metric", "nosuch"], "no run has"
                " the metric 'nosuch' ('profan query run-metrics' lists"
                " them)")
        bad(["--baseline", "base", "--same-tag", ""], "--same-tag needs a "
            "KEY")
        bad(["--run", "run"], "--baseline is required")
        before = self.db_bytes()
        r = self.check("--baseline", "base", "--run", "run")
        self.assertEqual(r.rc, 0, r.err)
        self.assertTrue(r.err.startswith("OK: run 2 vs baseline 1: no "
                                         "regression in 1 metric"), r.err)
        self.assertEqual(self.db_bytes(), before)       # read only
        r = self.profan("check", "--help")
        self.assertEqual(r.rc, 0)
        for code in ("0 pass", "1 regression", "2 usage", "4 missing",
                     "5 inconclusive"):
            self.assertIn(code, r.out)


class Metrics(GateTest):

    def test_gpu_busy_drop_is_a_regression_of_a_lower_is_worse_metric(self):
        """Same step times, GPU activity 30 % shorter: the busy share of
        the steps drops by about 30 %."""
        rnd = random.Random(3)
        base = [1 + rnd.uniform(-.01, .01) for _ in range(5)]
        self.ingest_as("base", self.write("base", base))
        self.ingest_as("idle", self.write("idle", base, gpu_scale=0.7))
        r = self.check("--run", "idle", "--baseline", "base",
                       "-m", "step_gpu_busy_pct", "-m", "gpu_util_pct",
                       "-m", "step_time_median_ms")
        rows = {x["metric"]: x for x in r.json()}
        self.assertEqual(rows["step_gpu_busy_pct"]["direction"], -1)
        self.assertEqual(rows["step_gpu_busy_pct"]["verdict"], "regression")
        self.assertLess(rows["step_gpu_busy_pct"]["shift_pct"], -20)
        # gpu_util_pct has no per-step samples and no history: the data
        # cannot tell noise
        self.assertEqual(rows["gpu_util_pct"]["verdict"], "inconclusive")
        self.assertIn("no per-step samples", rows["gpu_util_pct"]["reason"])
        self.assertLess(rows["gpu_util_pct"]["change_pct"], -20)
        self.assertEqual(rows["step_time_median_ms"]["verdict"], "ok")
        self.assertEqual(r.rc, 1, r.err)
        # faster GPU work the other way round: improved
        r = self.check("--run", "base", "--baseline", "idle",
                       "-m", "step_gpu_busy_pct")
        self.assertEqual(r.json()[0]["verdict"], "improved")
        self.assertEqual(r.rc, 0, r.err)
        # five more comparable runs make a history: gpu_util_pct decided
        for i in range(5):
            self.ingest_as("h%d" % i, self.write(
                "h%d" % i, [1 + rnd.uniform(-.01, .01) for _ in range(5)]))
        r = self.check("--run", "idle", "--baseline", "h4",
                       "-m", "gpu_util_pct")
        row = r.json()[0]
        self.assertEqual(row["history_runs"], 6)
        self.assertEqual(row["verdict"], "regression")
        self.assertEqual(r.rc, 1, r.err)
        self.assertIn("history: 6 comparable runs (7, 6, 5, 4, 3, 1)", r.err)
        # a --z above the run's robust z takes the drop for noise
        z = abs(row["robust_z"])
        self.assertGreater(z, 3)
        r = self.check("--run", "idle", "--baseline", "h4",
                       "-m", "gpu_util_pct", "--z", "%g" % (z * 1.01 + 1))
        self.assertEqual(r.json()[0]["verdict"], "noise", r.err)
        self.assertEqual(r.rc, 0, r.err)

    def test_too_few_steady_steps_and_same_tag(self):
        self.ingest_as("base", self.write("base", [1.0, 1.0]))
        self.ingest_as("run", self.write("run", [1.2, 1.2]))
        r = self.check("--run", "run", "--baseline", "base")
        self.assertEqual(r.rc, 5, r.err)
        self.assertTrue(r.err.startswith(
            "INCONCLUSIVE: run 2 vs baseline 1: step_time_median_ms: +20.00%;"
            " too few steady steps to tell noise (2 in the baseline, 2 in the"
            " run, the step test needs 3) and 1 comparable runs in the "
            "history (the noise test needs 5)"), r.err)
        # --same-tag: runs of another config leave the history
        for name, cfg in (("a1", "a"), ("b1", "b"), ("a2", "a")):
            self.ingest_as(name, self.write(name, [1.0] * 3))
            self.assertEqual(self.profan("tag", name, "config=" + cfg).rc, 0)
        r = self.check("--run", "run", "--baseline", "a2", "--same-tag",
                       "config")
        lines = r.err.splitlines()
        self.assertEqual(lines[1], "history: 2 comparable runs (5, 3); the "
                         "noise test needs 5", r.err)
        self.assertIn("left out: run 4 b1: tag config: b vs a", lines)
        self.assertIn("left out: run 1 base: tag config: (none) vs a", lines)
        # and the checked run itself must carry the same tag
        self.assertEqual(r.rc, 4, r.err)
        self.assertIn("not the baseline's workload: tag config: (none) vs a",
                      r.err)


class ThousandSteps(GateTest):

    def test_1000_steps_a_side(self):
        """1,000 steps a side (the normal approximation of U): +6 % with
        ±2 % noise is a regression, +1 % is ok, each check in seconds."""
        rnd = random.Random(1000)
        d = os.path.join(self.tmp.name, "k")
        for name, level in (("base", 1.0), ("slow", 1.06), ("same", 1.01)):
            write_ranks(os.path.join(d, name), [[
                10 * level * (1 + rnd.uniform(-.02, .02))
                for _ in range(1000)]])
            self.ingest_ok(os.path.join(d, name), extra=["--name", name,
                                                         "--quiet"])
        t = time.time()
        r = self.check("--run", "slow", "--baseline", "base")
        self.assertLess(time.time() - t, 30)
        self.assertEqual(r.rc, 1, r.err)
        row = r.json()[0]
        self.assertEqual((row["n_baseline"], row["n_run"]), (1000, 1000))
        self.assertAlmostEqual(row["shift_pct"], 6.0, delta=0.3)
        self.assertLess(row["shift_hi_pct"] - row["shift_lo_pct"], 1.0)
        r = self.check("--run", "same", "--baseline", "base")
        self.assertEqual(r.rc, 0, r.err)
        self.assertEqual(r.json()[0]["verdict"], "ok")


class ScenarioGrid(GateTest):
    """The short seeded grid of the scenario matrix: 3 and 5 steps, ±2 %
    step noise, slowdowns 0, 5 and 20 %, three seeds, each family checked
    with and without the unrelated fixtures in the database."""

    def test_grid(self):
        res = gs.matrix([3, 5], [2], [0, 5, 20], 3, with_unrelated=True,
                        jobs=2, workdir=self.tmp.name, tpl=template(True))
        self.assertEqual(len(res), 2 * 3 * 3 * 2)
        for (st, nz, s, sd, unrel), cls in sorted(res.items()):
            key = (st, nz, s, sd, unrel)
            if s >= 5:
                self.assertIn(cls, ("regression", "inconclusive"), key)
            else:
                self.assertEqual(cls, "ok", key)
            self.assertEqual(cls, res[(st, nz, s, sd, not unrel)], key)
        # at ±2 % noise a 20 % slowdown is always a regression
        self.assertTrue(all(c == "regression" for k, c in res.items()
                            if k[2] == 20))


if __name__ == "__main__":
    unittest.main()


def write_ranks(dirpath, per_rank):
    """A multi-rank run directory: one Kineto trace per rank (distributedInfo
    rank), one ProfilerStep#N per entry of the rank's step list (ms), each
    with one GEMM kernel of half the step."""
    os.makedirs(dirpath, exist_ok=True)
    for rank, steps in enumerate(per_rank):
        evs, t = [], 1_000_000
        for i, ms in enumerate(steps):
            dur = int(round(ms * 1000))
            evs.append({"ph": "X", "cat": "user_annotation",
                        "name": "ProfilerStep#%d" % (i + 1), "pid": 1,
                        "tid": 1, "ts": t, "dur": dur})
            evs.append({"ph": "X", "cat": "kernel", "name": "sm90_gemm",
                        "pid": 0, "tid": 7, "ts": t + 1, "dur": dur // 2})
            t += dur
        with open(os.path.join(dirpath, "worker%d.json" % rank), "w") as fh:
            json.dump({"schemaVersion": 1, "distributedInfo": {
                "rank": rank, "world_size": len(per_rank)},
                "traceEvents": evs}, fh)


class StepsPerRank(GateTest):

    def test_dlrm_one_step_per_rank(self):
        self.ingest_ok(shared("runs", "dlrm-8rank"))
        s = {x["item"]: x["value"] for x in self.query("report-summary")}
        self.assertEqual(s["ranks"], "8")
        self.assertEqual(s["steps"], "1")
        self.assertEqual(s["steady steps"], "1 (warm-up 0, cut 0)")
        rules = [x["rule"] for x in self.profan(
            "--format", "json", "report").json()["findings"]]
        self.assertNotIn("step-variation", rules)   # 1 step on 8 ranks

    def test_step_variation_per_rank_over_steady_steps(self):
        r0 = [10.0, 10.0, 10.0, 10.0, 10.0]
        r1 = [30.0, 10.0, 14.0, 7.0, 12.0, 9.0]    # first step: warm-up
        d = os.path.join(self.tmp.name, "run")
        write_ranks(d, [r0, r1])
        self.ingest_ok(d, extra=["--quiet"])
        steady = r1[1:]
        m = statistics.mean(steady)
        cv = 100 * statistics.pstdev(steady) / m
        rows = self.query("steps")
        self.assertEqual([(r["rank"], r["steady"], r["reason"])
                          for r in rows if r["steady"] == "0"],
                         [("1", "0", "warm-up")])
        f = {x["rule"]: x for x in self.profan("--format", "json",
                                                "report").json()["findings"]}
        v = f["step-variation"]
        self.assertEqual(v["message"], "step time varies by %.1f %% on rank 1"
                         " (standard deviation / mean of 5 steady steps); 1 of"
                         " 2 ranks above 10 %%" % cv)
        self.assertAlmostEqual(v["value"], round(cv, 2))
        s = {x["item"]: x["value"] for x in self.query("report-summary")}
        self.assertEqual(s["steps"], "6")           # the longest rank
        met = {x["metric"]: float(x["value"]) for x in
               self.query("run-metrics")}
        self.assertAlmostEqual(met["step_time_median_ms"],
                               statistics.median(r0 + steady), places=6)
        self.assertEqual(met["steady_steps"], 5)
