"""test_step_bound.py — the step time that bounds the work (issue 30):
step.bound_ts / bound_dur / bound_by, computed at ingest by
derive_step_bound.c, shown by `query steps` and `show`, read by every
step statistic through view step_steady.

Oracles, none of them profan's output:
- gate_scenarios.bound_steps: the definition computed here in Python from
  each trace's JSON (CPU steps, the GPU activities whose launch call lies
  in the step, the running end), on every fixture with ProfilerSteps and
  on replayed scenarios whose GPU work was slowed;
- the steady rule (gate_scenarios.steady_reasons) and the median of the
  steady steps, in Python, against the stored step_time_median_ms;
- tests/oracle/step_bound.sql (the definition's readable spec, in SQL)
  run by the stock sqlite3 over the ingested rows: the same columns.
"""
import glob
import json
import os
import random
import sqlite3

import gate_scenarios as gs
from common import ProfanTest, ROOT, SHARED, shared, events

MI300 = ("traces", "tracelens-mi300-resnet-ckpt.json.gz")
BLOCKED = os.path.join(ROOT, "fixtures", "hta32", "blocked-queue.json.gz")


def fixtures_with_steps():
    """The traces with ProfilerSteps: ../shared/fixtures/traces, then the
    repository's fixtures/ (hta32 blocked-queue, sample-run, regimes)."""
    out = []
    for p in sorted(glob.glob(os.path.join(SHARED, "traces", "*.json*"))) \
            + sorted(glob.glob(os.path.join(ROOT, "fixtures", "*",
                                            "*.json*"))):
        if gs.bound_steps(events(p)):
            out.append(p)
    return out


class StepBound(ProfanTest):

    def steps_of(self, run):
        return [(int(r["step"]), float(r["dur_ms"]), float(r["cpu_ms"]),
                 r["bound_by"], r["steady"], r["reason"])
                for r in self.query("steps", run_ref=run)]

    def assert_steps(self, run, evs):
        want = gs.bound_steps(evs)
        got = self.steps_of(run)
        self.assertEqual(len(got), len(want), run)
        reasons = gs.steady_reasons([d for _, _, d, _ in want])
        for (name, start, dur, by), r, g in zip(want, reasons, got):
            self.assertEqual(g[0], int(name.split("#")[1]), run)
            self.assertAlmostEqual(g[1], dur / 1e3, places=3, msg=(run, name))
            self.assertEqual(g[3], by, (run, name))
            self.assertEqual((g[4], g[5]), ("0" if r else "1", r),
                             (run, name))
        return want

    def test_every_fixture_and_the_stored_median(self):
        paths = fixtures_with_steps()
        self.assertGreaterEqual(len(paths), 10)
        for p in paths:
            name = os.path.basename(p)
            self.ingest_ok(p, extra=["--name", name, "--quiet"])
            evs = events(p)
            self.assert_steps(name, evs)
            m = {x["metric"]: float(x["value"])
                 for x in self.query("run-metrics", run_ref=name)}
            self.assertAlmostEqual(m["step_time_median_ms"],
                                   gs.steady_median_ms(evs), places=3, msg=name)

    def test_cpu_ahead_is_the_gpu_side(self):
        """tracelens-mi300: 16 ms CPU steps launch 19 ms of GPU work each
        (the issue's "GPU-side step marks 19 ms apart"); the step times
        are the GPU's, and a GPU 20 % slower (replayed) moves them."""
        p = shared(*MI300)
        self.ingest_ok(p, extra=["--name", "mi300", "--quiet"])
        want = self.assert_steps("mi300", events(p))
        self.assertEqual([w[3] for w in want], ["gpu"] * 3)
        self.assertTrue(all(18 < d / 1e3 < 20 for _, _, d, _ in want))
        got = self.steps_of("mi300")
        self.assertTrue(all(g[2] < 17 for g in got))      # the CPU steps
        tpl = gs.Template(p)
        out = os.path.join(self.tmp.name, "gpu20.json")
        tpl.write(out, [1.0] * tpl.steps, "gpu", 0.2)
        self.ingest_ok(out, extra=["--name", "gpu20", "--quiet"])
        slow = self.assert_steps("gpu20", events(out))
        for a, b in zip(want, slow):
            self.assertGreater(b[2] / a[2], 1.15)
        # the CPU steps of the replay did not move (the CPU never waited)
        self.assertEqual([g[2] for g in self.steps_of("gpu20")],
                         [g[2] for g in got])
        # show says so
        r = self.profan("show", "mi300", "--section", "steps")
        self.assertIn("GPU side in 3 (the CPU runs ahead)", r.out)

    def test_launches_before_the_steps_are_no_steps_work(self):
        """fixtures/hta32 blocked-queue: 1,045 kernels launched before
        ProfilerStep#1 run for 104 ms, starting inside #1's and #4's CPU
        ranges; they are no step's work (their launch is in no step).  A
        step is the GPU span of its own 18-19 launches (1.8-1.9 ms), the
        last (a cudaDeviceSynchronize draining the queue) the 4 us after
        the GPU is done; the same with +-2 % noise replayed."""
        evs = events(BLOCKED)
        self.ingest_ok(BLOCKED, extra=["--name", "bq", "--quiet"])
        want = self.assert_steps("bq", evs)
        # from the JSON: the kernels whose launch call lies in #1
        t0 = {gs.corr(e): float(e["ts"]) for e in evs
              if e.get("cat") == "cuda_runtime"}
        s1 = next(e for e in evs if e.get("name") == "ProfilerStep#1")
        c, e1 = float(s1["ts"]), float(s1["ts"]) + float(s1["dur"])
        ks = [(float(k["ts"]), float(k["ts"]) + float(k["dur"]))
              for k in evs if k.get("cat") == "kernel"
              and c <= t0[gs.corr(k)] < e1]
        self.assertEqual(len(ks), 18)
        got = self.steps_of("bq")
        self.assertAlmostEqual(got[0][1],
                               (max(b for _, b in ks) - min(a for a, _ in ks))
                               / 1e3, places=3)
        self.assertEqual([round(g[1], 3) for g in got],
                         [1.8, 1.8, 1.9, 0.004])
        m = {x["metric"]: float(x["value"])
             for x in self.query("run-metrics", run_ref="bq")}
        self.assertAlmostEqual(m["step_time_median_ms"],
                               gs.steady_median_ms(evs), places=3)
        tpl = gs.Template(BLOCKED)
        for seed in range(3):
            rnd = random.Random("blocked-queue/0.02/%d" % seed)
            out = os.path.join(self.tmp.name, "bq%d.json" % seed)
            tpl.write(out, gs.draws(rnd, tpl.steps, 0.02))
            self.ingest_ok(out, extra=["--name", "bq%d" % seed, "--quiet"])
            self.assert_steps("bq%d" % seed, events(out))

    def test_cpu_step_kept_when_the_cpu_waits(self):
        """hta-diff-control: the CPU waits for the GPU every step; the
        step times are the ProfilerStep ranges, up to a GPU tail of 0.2 ms
        into the next step."""
        p = shared("traces", "hta-diff-control-a100-rank3.json.gz")
        self.ingest_ok(p, extra=["--name", "control", "--quiet"])
        want = self.assert_steps("control", events(p))
        for g in self.steps_of("control"):
            self.assertLess(abs(g[1] - g[2]) / g[2], 0.005)
        self.assertIn("cpu", [w[3] for w in want])

    def test_sql_spec_equals_the_writer(self):
        """tests/oracle/step_bound.sql (the definition in SQL, 040's with
        092's launch call step) gives the writer's columns on every
        fixture with steps."""
        for p in fixtures_with_steps()[:6] + [shared(*MI300), BLOCKED]:
            self.ingest_ok(p, extra=["--quiet"])
        con = sqlite3.connect(self.db)
        got = con.execute("SELECT run_id, rank, step, bound_ts, bound_dur,"
                          " bound_by FROM step ORDER BY 1, 2, 3").fetchall()
        self.assertTrue(any(r[5] == "gpu" for r in got))
        text = open(os.path.join(ROOT, "tests", "oracle",
                                 "step_bound.sql")).read()
        i = text.index("WITH g AS (")
        j = text.index(";\n", i)
        con.execute("UPDATE step SET bound_ts = NULL, bound_dur = NULL,"
                    " bound_by = NULL")
        con.execute(text[i:j])
        again = con.execute("SELECT run_id, rank, step, bound_ts, bound_dur,"
                            " bound_by FROM step ORDER BY 1, 2, 3").fetchall()
        con.close()
        self.assertEqual(again, got)

    def test_warmup_never_reclassified_by_a_later_change(self):
        """Issue 30 point 4: one step +10 % made a 75 %-of-median warm-up
        step steady (the tolerance widened with the spread of all steps).
        Now the tolerance is fixed: the warm-up stays warm-up however the
        later steps move, and a uniform change moves no classification."""
        from test_gate import write_ranks
        base = [7.5, 10.0, 10.2, 9.9, 10.1, 10.0]
        for i, later in enumerate((0, 0.10, 0.20, 0.35)):
            steps = list(base)
            steps[3] *= 1 + later                # one later step slower
            d = os.path.join(self.tmp.name, "r%d" % i)
            write_ranks(d, [steps])
            self.ingest_ok(d, extra=["--name", "r%d" % i, "--quiet"])
            rows = self.steps_of("r%d" % i)
            self.assertEqual([r[5] for r in rows],
                             ["warm-up", "", "", "", "", ""], later)
        d = os.path.join(self.tmp.name, "u")
        write_ranks(d, [[x * 1.2 for x in base]])
        self.ingest_ok(d, extra=["--name", "u", "--quiet"])
        self.assertEqual([r[5] for r in self.steps_of("u")],
                         [r[5] for r in self.steps_of("r0")])

    def test_gpu_span_moved_with_a_late_base_time(self):
        """A file whose baseTimeNanoseconds comes after its events (fixtures/
        regimes late base: the rows go in relative and are moved at the
        file's end) with its one kernel running past the CPU step: the GPU
        span the writer kept is moved with the rows, so the step is the
        GPU's, from the step's start to the kernel's end (computed here from
        the JSON), and tests/oracle/step_bound.sql agrees."""
        src = os.path.join(ROOT, "fixtures", "regimes",
                           "regime-relative_late_base.json")
        doc = json.load(open(src))
        evs = doc["traceEvents"]
        k = next(e for e in evs if e["cat"] == "kernel")
        s = next(e for e in evs if e["name"] == "ProfilerStep#1")
        k["dur"] = s["ts"] + s["dur"] + 15 - k["ts"]    # 15 us past the step
        out = os.path.join(self.tmp.name, "late-base.json")
        with open(out, "w") as f:
            json.dump(doc, f)
        self.ingest_ok(out, extra=["--quiet"])
        base = doc["baseTimeNanoseconds"]
        want = (base + s["ts"] * 1000, (k["ts"] + k["dur"] - s["ts"]) * 1000,
                "gpu")
        con = sqlite3.connect(self.db)
        q = "SELECT bound_ts, bound_dur, bound_by FROM step"
        self.assertEqual(con.execute(q).fetchall(), [want])
        text = open(os.path.join(ROOT, "tests", "oracle",
                                 "step_bound.sql")).read()
        i = text.index("WITH g AS (")
        con.execute("UPDATE step SET bound_ts = NULL, bound_dur = NULL,"
                    " bound_by = NULL")
        con.execute(text[i:text.index(";\n", i)])
        self.assertEqual(con.execute(q).fetchall(), [want])
        con.close()
