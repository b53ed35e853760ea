"""test_history.py — end-to-end tests of comparison and history (issue 5).

`profan tag`, `baseline`, the run_metric view, `diff` (and the diff-*
named queries), `trend` and the `check` regression gate.  Diff numbers of
the real A/B fixture pairs are computed here from the trace JSON; the
history tests build series of runs from tiny synthetic traces whose step
and kernel durations this file chooses (noise, a 10 % step, a slow creep).
"""
import json
import os
import random
import statistics
import subprocess

import common
import gate_scenarios
from common import ProfanTest, shared, events
from trace_reference import kind_of, steps, us_to_ns


def write_trace(path, step_ms, gemm_frac=0.6, fill_frac=0.2, tag=""):
    """A one-rank Kineto trace: one ProfilerStep#N per entry of step_ms
    (durations in ms), each with a GEMM kernel and a fill kernel taking
    gemm_frac and fill_frac of the step.  tag makes the content unique."""
    evs, t = [], 1_000_000
    for i, ms in enumerate(step_ms):
        dur = int(round(ms * 1000))                         # µs
        evs.append({"ph": "X", "cat": "user_annotation",
                    "name": "ProfilerStep#%d" % (i + 1), "pid": 1, "tid": 1,
                    "ts": t, "dur": dur})
        g = int(dur * gemm_frac)
        f = int(dur * fill_frac)
        evs.append({"ph": "X", "cat": "kernel", "name": "sm90_gemm_bf16",
                    "pid": 0, "tid": 7, "ts": t + 1, "dur": g})
        evs.append({"ph": "X", "cat": "kernel", "name": "fill_kernel",
                    "pid": 0, "tid": 7, "ts": t + 2 + g, "dur": f})
        t += dur
    with open(path, "w") as fh:
        json.dump({"schemaVersion": 1, "traceName": tag,
                   "traceEvents": evs}, fh)


class HistoryTest(ProfanTest):

    def synth(self, name, step_ms, tags=(), **kw):
        """Write and ingest one synthetic run; returns its step list."""
        path = os.path.join(self.tmp.name, name + ".json")
        write_trace(path, step_ms, tag=name, **kw)
        extra = ["--name", name, "--quiet"]
        for t in tags:
            extra += ["--tag", t]
        self.ingest_ok(path, extra=extra)
        os.remove(path)
        return step_ms

    def check(self, *args):
        return self.profan("--format", "json", "check", *args)


class TagBaseline(HistoryTest):

    def test_tag_baseline_and_run_references(self):
        self.synth("r1", [10, 10, 10])
        self.synth("r2", [11, 11, 11], tags=["git=aaa"])
        r = self.profan("tag", "r1", "git=abc", "config=bs64")
        self.assertEqual(r.rc, 0, r.err)
        r = self.profan("tag", "r2", "git=bbb", "--rm", "nothing")
        self.assertEqual(r.rc, 0, r.err)
        rows = self.sql("SELECT run_id, key, value FROM run_tag"
                        " ORDER BY run_id, key")
        self.assertEqual([(x["run_id"], x["key"], x["value"]) for x in rows],
                         [("1", "config", "bs64"), ("1", "git", "abc"),
                          ("2", "git", "bbb")])
        r = self.profan("--format", "csv", "runs", "--tag", "git=abc")
        self.assertEqual([x["name"] for x in r.rows()], ["r1"])
        # named baseline, used wherever --baseline is accepted
        self.assertEqual(self.profan("baseline", "set", "main", "r1").rc, 0)
        r = self.profan("--format", "csv", "baseline", "list")
        self.assertEqual([(x["name"], x["run_id"]) for x in r.rows()],
                         [("main", "1")])
        r = self.profan("tag", "--baseline", "main", "--rm", "config")
        self.assertEqual(r.rc, 0, r.err)
        self.assertEqual(len(self.sql("SELECT * FROM run_tag WHERE run_id=1")),
                         1)
        r = self.profan("--format", "csv", "diff", "--baseline", "main", "r2",
                        "--by", "metrics")
        self.assertEqual(r.rc, 0, r.err)
        m = {x["metric"]: x for x in r.rows()}
        self.assertAlmostEqual(float(m["step_time_median_ms"]["a"]), 10)
        self.assertAlmostEqual(float(m["step_time_median_ms"]["b"]), 11)
        self.assertAlmostEqual(float(m["step_time_median_ms"]["change_pct"]),
                               10.0)
        # moving a baseline, removing one, and runs removed with theirs
        self.assertEqual(self.profan("baseline", "set", "main", "2").rc, 0)
        self.assertEqual(self.profan("baseline", "set", "old", "1").rc, 0)
        r = self.profan("--format", "csv", "baseline", "list")
        self.assertEqual([(x["name"], x["run_id"]) for x in r.rows()],
                         [("main", "2"), ("old", "1")])
        self.assertEqual(self.profan("baseline", "rm", "old").rc, 0)
        self.assertEqual(self.profan("baseline", "rm", "old").rc, 2)
        self.assertEqual(self.profan("rm", "r2").rc, 0)
        self.assertEqual(self.sql("SELECT count(*) AS n FROM baseline")[0]["n"],
                         "0")
        # errors: usage 2, unknown run 2 too (the contract)
        self.assertEqual(self.profan("tag", "r1", "novalue").rc, 2)
        self.assertEqual(self.profan("tag", "r1").rc, 2)
        self.assertEqual(self.profan("tag", "nope", "a=b").rc, 2)
        self.assertEqual(self.profan("baseline", "set", "x").rc, 2)
        self.assertEqual(self.profan("baseline", "frob").rc, 2)
        self.assertEqual(self.profan("baseline", "set", "x", "nope").rc, 2)
        self.assertEqual(self.profan("diff", "r1").rc, 2)
        self.assertEqual(self.profan("diff", "r1", "r1", "--by", "x").rc, 2)
        self.assertEqual(self.profan("--format", "csv", "diff", "r1",
                                     "r1").rc, 2)


class RunMetric(HistoryTest):

    def test_run_metric_values_and_stock_sqlite3(self):
        st = [10.0, 12.0, 11.0, 30.0, 10.5, 9.5, 10.2]
        self.synth("m", st, gemm_frac=0.5, fill_frac=0.25)
        m = {x["metric"]: float(x["value"])
             for x in self.sql("SELECT metric, value FROM run_metric"
                               " WHERE run_id=1")}
        s = sorted(st)
        self.assertAlmostEqual(m["step_time_median_ms"], statistics.median(st))
        self.assertAlmostEqual(m["step_time_p90_ms"], s[-1])  # nearest rank 7
        self.assertAlmostEqual(m["step_time_mean_ms"], statistics.mean(st))
        self.assertEqual(m["steps"], 7)
        gemm = sum(int(x * 1000 * 0.5) for x in st)
        fill = sum(int(x * 1000 * 0.25) for x in st)
        self.assertAlmostEqual(m["cat_coarse:matmul_pct"],
                               100.0 * gemm / (gemm + fill), places=6)
        self.assertAlmostEqual(m["cat_detailed:Elementwise/Fill_pct"],
                               100.0 * fill / (gemm + fill), places=6)
        self.assertAlmostEqual(m["gpu_ms"], (gemm + fill) / 1e3 / 7, places=6)
        self.assertAlmostEqual(m["top_kernel_ms"], gemm / 1e3 / 7, places=6)
        # busy = kernels, window = first kernel start .. last kernel end
        window = sum(int(x * 1000) for x in st[:-1]) + 2 \
            + int(st[-1] * 1000 * 0.5) + int(st[-1] * 1000 * 0.25) - 1
        self.assertAlmostEqual(m["gpu_util_pct"],
                               100.0 * (gemm + fill) / window, places=6)
        self.assertNotIn("fragmentation_pct", m)      # no snapshot
        # the view is plain SQL: the stock shell gives the same rows
        out = subprocess.run(
            ["sqlite3", self.db, "SELECT value FROM run_metric"
             " WHERE run_id=1 AND metric='step_time_median_ms'"],
            capture_output=True, text=True, check=True).stdout
        self.assertAlmostEqual(float(out), statistics.median(st))
        q = {x["metric"]: float(x["value"]) for x in self.query("run-metrics")}
        self.assertAlmostEqual(q["steps"], 7)


def gpu_totals(evs):
    """{(kind, name): total_ns} of kernels, memcpys and memsets."""
    out = {}
    for e in evs:
        k = kind_of(e)
        if k in ("kernel", "memcpy", "memset") and \
                isinstance(e.get("ts"), (int, float)):
            key = (k, e["name"])
            out[key] = out.get(key, 0) + max(0, us_to_ns(e.get("dur", 0)))
    return out


def share_step(evs, st):
    """The step time the diff queries' shares are of (README, schema 067):
    the longest of the mean CPU step, the GPU ops' span per step and their
    summed time per step (one GPU a rank in these traces)."""
    gpu = [(us_to_ns(e["ts"]), us_to_ns(e["ts"]) + max(0, us_to_ns(e["dur"])))
           for e in evs if kind_of(e) in ("kernel", "memcpy", "memset")
           and isinstance(e.get("ts"), (int, float))]
    span = max(b for _, b in gpu) - min(a for a, _ in gpu)
    total = sum(b - a for a, b in gpu)
    n = len(st)
    return max(sum(st.values()) / n, span / n, total / n)


class Diff(HistoryTest):

    def expect_kernels(self, a_evs, b_evs, floor=0.3):
        """Rows diff-kernels should give, computed from the JSON."""
        sa, sb = steps(a_evs), steps(b_evs)
        ta, tb = gpu_totals(a_evs), gpu_totals(b_evs)
        da, db = share_step(a_evs, sa), share_step(b_evs, sb)
        big, small = {}, []
        for key in set(ta) | set(tb):
            a = ta.get(key, 0) / len(sa)
            b = tb.get(key, 0) / len(sb)
            if 100.0 * a / da < floor and 100.0 * b / db < floor:
                small.append((a, b))
            else:
                status = "new" if key not in ta else \
                    "vanished" if key not in tb else "changed"
                big[key] = (a, b, status)
        return big, small, da, db

    def test_diff_hta_pair(self):
        pa = shared("traces", "hta-diff-control-a100-rank3.json.gz")
        pb = shared("traces", "hta-diff-test-v100-rank1.json.gz")
        self.ingest_ok(pa)
        self.ingest_ok(pb)
        a_evs, b_evs = events(pa), events(pb)
        big, small, da, db = self.expect_kernels(a_evs, b_evs)
        r = self.profan("--format", "csv", "diff", "1", "2", "--by", "kernel",
                        "--limit", "10000")
        self.assertEqual(r.rc, 0, r.err)
        rows = r.rows()
        got = {(x["kind"], x["name"]): x for x in rows
               if x["status"] != "folded"}
        self.assertEqual(set(got), set(big))
        self.assertTrue(any(v[2] == "new" for v in big.values()))
        self.assertTrue(any(v[2] == "vanished" for v in big.values()))
        for key, (a, b, status) in big.items():
            x = got[key]
            self.assertEqual(x["status"], status, key)
            self.assertAlmostEqual(float(x["a_ms"]), a / 1e6, places=3)
            self.assertAlmostEqual(float(x["b_ms"]), b / 1e6, places=3)
            self.assertAlmostEqual(float(x["delta_ms"]), (b - a) / 1e6,
                                   places=3)
            if a and b:
                self.assertAlmostEqual(float(x["speedup"]), a / b, places=2)
            self.assertAlmostEqual(float(x["a_step_pct"]), 100 * a / da,
                                   places=1)
        folded = [x for x in rows if x["status"] == "folded"]
        self.assertEqual(len(folded), 1)
        self.assertEqual(folded[0]["name"], "(other: %d)" % len(small))
        self.assertAlmostEqual(float(folded[0]["a_ms"]),
                               sum(a for a, _ in small) / 1e6, places=3)
        self.assertAlmostEqual(float(folded[0]["b_ms"]),
                               sum(b for _, b in small) / 1e6, places=3)
        # the named query gives the same rows with --param baseline=ID
        q = self.query("diff-kernels", "--param", "baseline=1",
                       "--limit", "10000", run_ref="2")
        self.assertEqual(q, rows)
        # categories: coarse shares sum to the totals; step time metrics
        r = self.profan("--format", "csv", "diff", "1", "2", "--by",
                        "category", "--scheme", "coarse", "--floor", "0")
        cats = r.rows()
        self.assertEqual(sorted(x["category"] for x in cats),
                         ["comm", "matmul", "memory", "other"])
        ta, tb = gpu_totals(a_evs), gpu_totals(b_evs)
        self.assertAlmostEqual(sum(float(x["a_ms"]) for x in cats),
                               sum(ta.values()) / len(steps(a_evs)) / 1e6,
                               places=2)
        self.assertAlmostEqual(sum(float(x["b_ms"]) for x in cats),
                               sum(tb.values()) / len(steps(b_evs)) / 1e6,
                               places=2)
        comm_a = sum(v for (k, n), v in ta.items() if "nccl" in n.lower())
        comm = [x for x in cats if x["category"] == "comm"][0]
        self.assertAlmostEqual(float(comm["a_ms"]),
                               comm_a / len(steps(a_evs)) / 1e6, places=3)
        r = self.profan("--format", "csv", "diff", "1", "2", "--by", "metrics")
        m = {x["metric"]: x for x in r.rows()}
        for run, evs in (("a", a_evs), ("b", b_evs)):
            # the step time bounds the work (GPU side when the GPU work of a
            # step outlasts it) over the steady steps
            self.assertAlmostEqual(
                float(m["step_time_median_ms"][run]),
                gate_scenarios.steady_median_ms(evs), places=3)
        # table output has the three sections
        r = self.profan("diff", "1", "2")
        self.assertEqual(r.rc, 0, r.err)
        for section in ("metrics", "categories", "kernels"):
            self.assertIn("\n%s\n" % section, r.out)

    def test_diff_kineto_pair(self):
        pa = shared("traces", "kineto-h100-2026-before.json")
        pb = shared("traces", "kineto-h100-2026-after.json")
        self.ingest_ok(pa)
        self.ingest_ok(pb)
        ta, tb = gpu_totals(events(pa)), gpu_totals(events(pb))
        r = self.profan("--format", "csv", "diff", "1", "2", "--by", "kernel",
                        "--floor", "0")
        self.assertEqual(r.rc, 0, r.err)
        rows = r.rows()
        self.assertEqual({(x["kind"], x["name"]) for x in rows},
                         set(ta) | set(tb))
        for x in rows:                      # one (gap-detected) step each
            key = (x["kind"], x["name"])
            self.assertAlmostEqual(float(x["a_ms"]), ta.get(key, 0) / 1e6, 4)
            self.assertAlmostEqual(float(x["b_ms"]), tb.get(key, 0) / 1e6, 4)
        r = self.profan("--format", "csv", "diff", "1", "2", "--by", "memory")
        self.assertEqual(r.rc, 0, r.err)
        self.assertEqual(r.rows(), [])      # no memory snapshots


class Series(HistoryTest):

    def test_trend(self):
        vals = []
        for i in range(12):
            ms = 10.0 + i * 0.5 if i % 2 == 0 else 20.0
            tags = ["branch=main" if i % 2 == 0 else "branch=dev"]
            self.synth("t%02d" % i, [ms] * 3, tags=tags)
            if i % 2 == 0:
                vals.append(ms)
        r = self.profan("--format", "csv", "trend", "step_time_median_ms",
                        "--tag", "branch=main")
        self.assertEqual(r.rc, 0, r.err)
        rows = r.rows()
        self.assertEqual([float(x["value"]) for x in rows], vals)
        self.assertEqual([x["name"] for x in rows],
                         ["t%02d" % i for i in range(0, 12, 2)])
        self.assertEqual(rows[0]["change_pct"], "")
        for prev, x in zip(vals, rows[1:]):
            self.assertAlmostEqual(float(x["change_pct"]),
                                   100 * (float(x["value"]) - prev) / prev)
        self.assertEqual([float(v) for v in
                          rows[-1]["series_spark"].split(",")], vals)
        self.assertTrue(all(x["series_spark"] == "" for x in rows[:-1]))
        self.assertEqual(float(rows[0]["level_bar"]), 0.0)
        self.assertEqual(float(rows[-1]["level_bar"]), 1.0)
        r = self.profan("--format", "csv", "trend", "step_time_median_ms",
                        "--last", "4")
        self.assertEqual([x["name"] for x in r.rows()],
                         ["t08", "t09", "t10", "t11"])
        r = self.profan("trend", "step_time_median_ms")   # table: sparkline
        self.assertEqual(r.rc, 0, r.err)
        self.assertIn("\u2588", r.out)
        self.assertEqual(self.profan("trend", "no_such_metric").rc, 2)
        self.assertEqual(self.profan("trend").rc, 2)

    def test_trend_change_pct_follows_the_number_rule(self):
        """change_pct of trend is formatted like every *_pct column
        (README "One format per unit"): raw in CSV and JSON, one decimal
        in tables and two significant digits below 0.1 (0.031, not the
        0.03 of a rounding in SQL)."""
        self.synth("a", [100.0] * 3)
        self.synth("b", [100.031] * 3)          # +0.031 %
        self.synth("c", [112.380] * 3)          # +12.346 %
        want = [None, 100 * (100.031 - 100) / 100,
                100 * (112.380 - 100.031) / 100.031]
        r = self.profan("--format", "csv", "trend", "step_time_median_ms")
        self.assertEqual(r.rc, 0, r.err)
        rows = r.rows()
        self.assertEqual(rows[0]["change_pct"], "")
        for w, x in zip(want[1:], rows[1:]):
            self.assertAlmostEqual(float(x["change_pct"]), w, places=9)
        self.assertAlmostEqual(float(rows[1]["value"]), 100.031, places=9)
        r = self.profan("--format", "json", "trend", "step_time_median_ms")
        got = [x["change_pct"] for x in json.loads(r.out)]
        self.assertIsNone(got[0])
        for w, g in zip(want[1:], got[1:]):
            self.assertAlmostEqual(g, w, places=9)
        r = self.profan("trend", "step_time_median_ms")
        self.assertEqual(r.rc, 0, r.err)
        lines = r.out.splitlines()
        head = lines[0].split()
        k = head.index("change_pct")
        cells = [ln.split()[k] for ln in lines[3:]]
        self.assertEqual(cells, ["0.031", "12.3"])

    def test_check_noise_step_and_creep(self):
        """A series of runs: noise never trips the gate, a 10 % step does,
        a slow creep is caught against an old baseline and never run to
        run.  100 noise runs and a 50-run creep (+0.4 % a run) with
        PROFAN_LONG=1; 20 and 20 (+1.6 % a run, the same +17 % in all)
        otherwise."""
        rnd = random.Random(5)
        n_noise, n_creep = (100, 50) if common.LONG else (20, 20)
        creep = 1.17 ** (1.0 / (n_creep - 10))

        def steps_of(level):
            return [level * (1 + rnd.uniform(-0.02, 0.02)) for _ in range(10)]

        # 1. pure noise: run level +-2 %, step noise +-2 %
        for i in range(n_noise):
            level = 100 * (1 + rnd.uniform(-.02, .02))
            self.synth("n%03d" % i, steps_of(level), tags=["series=noise"])
        self.assertEqual(self.profan("baseline", "set", "noise", "n009").rc, 0)
        for i in range(n_noise):
            r = self.check("--baseline", "noise", "--run", "n%03d" % i,
                           "--tag", "series=noise")
            self.assertEqual(r.rc, 0, (i, r.out, r.err))
        # 2. a 10 % step is caught, with a tiny p-value and a large z
        self.synth("step", steps_of(110), tags=["series=noise"])
        r = self.check("--baseline", "noise", "--run", "step",
                       "--tag", "series=noise")
        self.assertEqual(r.rc, 1, r.err)
        self.assertTrue(r.err.startswith("REGRESSION:"), r.err)
        row = r.json()[0]
        self.assertEqual(row["verdict"], "regression")
        self.assertLess(row["p_value"], 0.001)
        self.assertEqual(row["history_runs"], 10)
        self.assertGreater(row["robust_z"], 3)
        # a faster run is an improvement, never a regression
        self.synth("fast", steps_of(80), tags=["series=noise"])
        r = self.check("--baseline", "noise", "--run", "fast")
        self.assertEqual(r.rc, 0, r.err)
        self.assertEqual(r.json()[0]["verdict"], "improved")
        # 3. slow creep per run from the creep baseline (run c09)
        for i in range(n_creep):
            self.synth("c%02d" % i, steps_of(100 * (creep ** i)),
                       tags=["series=creep"])
        last = "c%02d" % (n_creep - 1)
        self.assertEqual(self.profan("baseline", "set", "creep", "c09").rc, 0)
        r = self.check("--baseline", "creep", "--run", "c10",
                       "--tag", "series=creep")
        self.assertEqual(r.rc, 0, r.err)        # one step of creep: clean
        r = self.check("--baseline", "creep", "--run", last,
                       "--tag", "series=creep")
        self.assertEqual(r.rc, 1, r.err)        # +17 %: caught
        row = r.json()[0]
        self.assertEqual(row["history_runs"], 10)
        self.assertGreater(row["robust_z"], 3)
        # each run against its predecessor never trips (< 5 %)
        r = self.check("--baseline", "c%02d" % (n_creep - 2), "--run", last)
        self.assertEqual(r.rc, 0, r.err)

    def test_check_history_absorbs_run_to_run_noise(self):
        """Runs whose level varies +-10 % while steps inside a run are
        tight: per-step samples alone would cry wolf; the history does
        not."""
        rnd = random.Random(11)
        levels = [92, 108, 95, 105, 100, 90, 110, 97, 103, 100, 107, 130]
        for i, lv in enumerate(levels):
            self.synth("v%02d" % i, [lv * (1 + rnd.uniform(-.002, .002))
                                     for _ in range(10)])
        # history window: v00..v09, median 100, MAD 5 (scale 7.4)
        self.assertEqual(self.profan("baseline", "set", "b", "v09").rc, 0)
        r = self.check("--baseline", "b", "--run", "v10")
        row = r.json()[0]
        self.assertAlmostEqual(row["change_pct"], 7, delta=0.5)
        self.assertLess(row["p_value"], 0.001)      # per-step: "different"
        self.assertEqual(row["history_runs"], 10)
        self.assertAlmostEqual(row["robust_z"], 7 / (1.4826 * 5), delta=0.1)
        self.assertEqual(row["verdict"], "noise")   # inside the history
        self.assertEqual(r.rc, 0, r.err)
        r = self.check("--baseline", "b", "--run", "v11")       # +30 %
        self.assertEqual(r.rc, 1, r.err)
        self.assertGreater(r.json()[0]["robust_z"], 3)
        # without history (--last 4 < 5 runs) the per-step test decides
        r = self.check("--baseline", "b", "--run", "v10", "--last", "4")
        self.assertEqual(r.json()[0]["history_runs"], 0)
        self.assertEqual(r.rc, 1, r.err)

    def test_check_usage_and_formats(self):
        self.synth("a", [10] * 5)
        self.synth("b", [12] * 5)
        self.assertEqual(self.profan("check", "--run", "b").rc, 2)
        self.assertEqual(self.profan("check", "--baseline", "a",
                                     "--threshold", "x").rc, 2)
        self.assertEqual(self.profan("check", "--baseline", "a", "extra").rc,
                         2)
        self.assertEqual(self.profan("check", "--baseline", "nope").rc, 2)
        self.assertEqual(self.profan("check", "--baseline", "a",
                                     "--metric", "no_such_metric").rc, 2)
        r = self.profan("check", "--baseline", "a", "--run", "b")
        self.assertEqual(r.rc, 1)
        self.assertTrue(r.out.startswith("REGRESSION: run 2 vs baseline 1: "
                                         "step_time_median_ms +20.00%"), r.out)
        self.assertIn("regression", r.out.splitlines()[-1])
        # +20 % against 25 %: below it and nearer 25 % than 0; the runs
        # have the same schedule, so the steps are paired: every pair is
        # exactly +20 %, and even the wider interval (alpha_ok) is
        # [+20 %, +20 %]
        r = self.profan("check", "--baseline", "a", "--run", "b",
                        "--threshold", "25%")
        self.assertEqual(r.rc, 0, r.out)
        self.assertTrue(r.out.startswith("OK:"), r.out)
        self.assertIn("(5 steps paired): the wider interval stays below the"
                      " threshold too", r.out)
        r = self.profan("check", "--baseline", "a", "--run", "b",
                        "--threshold", "45%")
        self.assertEqual(r.rc, 0, r.out)
        self.assertTrue(r.out.startswith("OK:"), r.out)
        r = self.profan("check", "--baseline", "a", "--run", "b",
                        "--threshold", "0.45")
        self.assertEqual(r.rc, 0, r.out)
        r = self.profan("--format", "csv", "check", "--baseline", "a",
                        "--run", "b", "-m", "step_time_median_ms",
                        "-m", "gpu_util_pct")
        self.assertEqual(r.rc, 1)
        self.assertEqual([x["metric"] for x in r.rows()],
                         ["step_time_median_ms", "gpu_util_pct"])
        self.assertTrue(r.err.startswith("REGRESSION:"))
