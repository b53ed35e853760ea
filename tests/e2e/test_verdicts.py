"""test_verdicts.py — issue 13 (verdicts part): the straggler finding names
the rank the others wait for (dlrm-8rank and scenarios with a rank
delayed by a known time), steps from every trace generation, one
definition of communication (a test per comm_pattern row), one threshold
per advice, and typed parameters with exact error messages.

Expected values are computed here from the JSON (straggler_scenarios.py
holds the arrival oracle and the scenario generator), never from
profan's database.
"""
import fnmatch
import json
import os
import re

import common
import straggler_scenarios as sc
from common import ProfanTest, shared
from trace_reference import kind_of, steps, us_to_ns, union_ns


def X(cat, name, ts, dur, pid=1, tid=1, **args):
    return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid,
            "ts": ts, "dur": dur, "args": args}


class Straggler(ProfanTest):
    """Issue 31: stragglers on the common clock, severity by the time the
    others lost, candidates ranked by the waiting they caused, and what
    the late rank was doing.  Every scenario replays the real dlrm run
    (straggler_scenarios.py); the oracle reads the scenario's JSON."""

    def stragglers(self):
        r = self.profan("--format", "json", "report")
        self.assertEqual(r.rc, 0, r.err)
        return [f for f in r.json()["findings"] if f["rule"] == "straggler"]

    def check_against_oracle(self, ranks, findings):
        """profan's straggler findings are the oracle's, number for
        number, with the offsets the documented estimator gives (µs
        apart from the true ones)."""
        off = sc.estimate_offsets(ranks)
        blame, nd = sc.blame(ranks, off)
        want = sc.expected_stragglers(ranks, off)
        self.assertEqual([int(f["message"].split()[1]) for f in findings],
                         want)
        names = [r for r in sorted(blame, key=lambda r: (-blame[r]["waited"],
                                                         r))]
        for f in findings:
            r = int(f["message"].split()[1])
            b = blame[r]
            self.assertTrue(f["message"].startswith(
                "rank %d made the other ranks wait %.3f ms (%.1f %% of their"
                " traced GPU time): it arrived last at %d of %d collectives,"
                " up to %.3f ms after the first; before them it was %s"
                " (against the other ranks: GPU work %+.3f ms, host-side GPU"
                " idle %+.3f ms, GPU idle with the collective queued %+.3f"
                " ms)" % (r, b["waited"] / 1e6, b["lost"], b["n_late"], nd,
                          b["max_spread"] / 1e6, sc.CAUSE_WORDS[b["cause"]],
                          b["comp"] / 1e6, b["host"] / 1e6,
                          b["queued"] / 1e6)), (f["message"], b))
            self.assertAlmostEqual(f["value"], b["lost"], places=2)
            self.assertEqual(f["severity"], "high" if b["lost"] > sc.HIGH_PCT
                             else "medium")
            nxt = names[names.index(r) + 1:names.index(r) + 3]
            if nxt:
                self.assertIn("; next: " + ", ".join(
                    "rank %d %.3f ms" % (x, blame[x]["waited"] / 1e6)
                    for x in nxt), f["message"])
        return blame

    def run_scenario(self, run, name, **kw):
        edited = sc.edit(run, **kw)
        path = sc.write_run(edited, os.path.join(self.tmp.name, name))
        found = [f for _, f in sc.profan_stragglers(common.PROFAN, self.db,
                                                     path)]
        return edited, found

    def test_dlrm_names_rank_7_only(self):
        path = shared("runs", "dlrm-8rank")
        run = sc.load_run(path)
        ranks = sc.ranks_of(run)
        # the real run's clocks agree: the estimate is within 2 µs
        off = sc.estimate_offsets(ranks)
        self.assertLessEqual(max(abs(v) for v in off.values()), 2000)
        self.assertEqual(sc.expected_stragglers(ranks, {}), [7])
        self.ingest_ok(path)
        f = self.stragglers()
        self.assertEqual(len(f), 1, f)
        blame = self.check_against_oracle(ranks, f)
        self.assertEqual(blame[7]["cause"], "host")      # GPU idle, not compute
        self.assertTrue(f[0]["hint"].startswith("host side"))
        self.assertEqual(f[0]["threshold"], 25)
        # show reports the clocks, stored once
        clk = {int(x["rank"]): float(x["offset_ms"]) for x in
               common.run("--format", "csv", "show", "1", "--section",
                          "clocks", db=self.db).rows()}
        self.assertEqual(sorted(clk), list(range(8)))
        for r, v in clk.items():
            self.assertAlmostEqual(v, off[r] / 1e6, places=3)
        # rank-skew marks the same rank; collective-skew has the same late
        # ranks and waits
        skew = self.query("rank-skew")
        self.assertEqual([s["rank"] for s in skew if s["straggler"] == "1"],
                         ["7"])
        for s in skew:
            b = blame.get(int(s["rank"]))
            self.assertEqual(int(s["late_collectives"]),
                             b["n_late"] if b else 0)
            self.assertAlmostEqual(float(s["waited_for_ms"]),
                                   b["waited"] / 1e6 if b else 0, places=3)
        cs = self.query("collective-skew")
        self.assertEqual(len(cs), 8)
        for x in cs:
            # ends agree within microseconds once aligned
            self.assertLess(float(x["end_spread_us"]), 10)
        # a higher share names nobody; a scoped override is typed
        r = self.profan("--format", "json", "report", "--param",
                        "straggler.lost_pct=40")
        self.assertEqual([x for x in r.json()["findings"]
                          if x["rule"] == "straggler"], [])

    def test_clock_offset_is_not_a_straggler(self):
        """Issue 31.1: rank 3's whole trace 1 ms (and 5 ms) late changes
        nothing: the offset is found, reported and taken out; without the
        alignment rank 3 would be named."""
        run = sc.load_run(shared("runs", "dlrm-8rank"))
        for off_us in (1000, 5000):
            edited, f = self.run_scenario(run, "o%d" % off_us,
                                          offsets={3: off_us})
            ranks = sc.ranks_of(edited)
            raw = sc.expected_stragglers(ranks, {})
            self.assertIn(3, raw)                # what the naive view saw
            self.assertEqual(sc.expected_stragglers(
                ranks, {3: off_us * 1000}), [7])  # the truth
            self.assertEqual([int(x["message"].split()[1]) for x in f], [7])
            self.check_against_oracle(ranks, f)
            m = re.search(r"clocks aligned first \(rank 3 by \+([\d.]+) ms",
                          f[0]["message"])
            self.assertAlmostEqual(float(m.group(1)),
                                   sc.estimate_offsets(ranks)[3] / 1e6,
                                   delta=0.0006)
            clk = self.sql("SELECT rank, offset_ns FROM rank_clock")
            o3 = [int(x["offset_ns"]) for x in clk if x["rank"] == "3"][0]
            self.assertLess(abs(o3 - off_us * 1000), 3000)

    def test_small_late_arrival_is_not_high(self):
        """Issue 31.2: one 0.1 ms late arrival costs the others little:
        no finding for it; a 1 ms hiccup at one collective on another rank
        does not hide the real straggler."""
        run = sc.load_run(shared("runs", "dlrm-8rank"))
        edited, f = self.run_scenario(run, "small",
                                      delays=[(2, "host", 100, [5])])
        self.assertEqual([int(x["message"].split()[1]) for x in f], [7])
        self.check_against_oracle(sc.ranks_of(edited), f)
        edited, f = self.run_scenario(run, "hiccup",
                                      delays=[(4, "host", 1000, [3])])
        ranks = sc.ranks_of(edited)
        self.assertEqual([int(x["message"].split()[1]) for x in f][0], 7)
        self.check_against_oracle(ranks, f)

    def test_compute_slow_vs_host_stalled_vs_waiting(self):
        """Issue 31.3: the rank that costs most is named first, whatever
        the count of collectives it was last at, and the finding says
        whether it was computing, stalled on the host or itself waiting."""
        run = sc.load_run(shared("runs", "dlrm-8rank"))
        for how, word in (("compute", "computing"),
                          ("host", "stalled on the host"),
                          ("queued", "itself waiting")):
            ks = sc.eligible(run, 2, how)[:4]
            edited, f = self.run_scenario(run, how,
                                          delays=[(2, how, 3000, ks)])
            ranks = sc.ranks_of(edited)
            blame = self.check_against_oracle(ranks, f)
            self.assertEqual(int(f[0]["message"].split()[1]), 2, how)
            self.assertIn("before them it was %s (" % word, f[0]["message"])
            self.assertEqual(blame[2]["cause"], how)
            # ranked by waiting caused: rank 2 first though rank 7 was last
            # at about as many collectives
            self.assertGreater(blame[2]["waited"], blame[7]["waited"]
                               if 7 in blame else 0)

    def test_seeded_detection_table(self):
        """The short seeded matrix (offsets 0-5 ms, delays 0.3-5 ms of
        every kind): profan names exactly the oracle's ranks (true clocks)
        in every scenario; the full matrix is straggler_matrix.py."""
        rows = sc.table(common.PROFAN, sc.short_cells()[::3])
        for off, d, n, want, det, false, agree, raw in rows:
            self.assertEqual(false, 0, (off, d))
            self.assertEqual(det, want, (off, d))
            self.assertEqual(agree, n, (off, d))


class Steps(ProfanTest):

    def test_resnet50_2021_steps_5_to_10(self):
        path = shared("traces", "kineto-resnet50-2021.pt.trace.json.gz")
        exp = {}
        for e in common.events(path):
            if e.get("name", "").startswith("ProfilerStep#"):
                exp[int(e["name"][13:])] = us_to_ns(e["dur"])
        self.assertEqual(sorted(exp), [5, 6, 7, 8, 9, 10])
        for env in ({},):
            db = os.path.join(self.tmp.name, "r%d.db" % len(env))
            r = common.run("ingest", path, db=db, env=env)
            self.assertEqual(r.rc, 0, r.err)
            self.assertNotIn("idle-gap", r.err)
            rows = common.run("--format", "csv", "sql", "SELECT step, dur,"
                              " source FROM step ORDER BY step", db=db).rows()
            self.assertEqual({int(x["step"]): int(x["dur"]) for x in rows}, exp)
            self.assertEqual({x["source"] for x in rows}, {"ProfilerStep"})

    def write(self, name, ev, rank=0):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            json.dump({"traceEvents": ev, "distributedInfo": {"rank": rank}}, f)
        return path

    def step_trace(self, cat):
        """Two steps as `cat` ops around a launch each; kernels inside."""
        ev = []
        for i, t in enumerate((100, 400)):
            ev += [X(cat, "ProfilerStep#%d" % (i + 3), t, 250),
                   X("cpu_op", "aten::mm", t + 10, 50),
                   X("cuda_runtime", "cudaLaunchKernel", t + 20, 5,
                     correlation=i + 1),
                   X("kernel", "gemm_kernel", t + 40, 30, pid=0, tid=7,
                     correlation=i + 1)]
        return ev

    def test_every_category_and_path(self):
        for cat in ("Operator", "cpu_op", "user_annotation"):
            path = self.write(cat + ".json", self.step_trace(cat))
            seen = set()
            for env in ({},):
                db = os.path.join(self.tmp.name, "%s%d.db" % (cat, len(env)))
                r = common.run("ingest", path, db=db, env=env)
                self.assertEqual(r.rc, 0, r.err)
                q = common.run("--format", "csv", "sql",
                               "SELECT (SELECT group_concat(step || ':' || dur"
                               " || ':' || source) FROM step) AS s,"
                               " (SELECT group_concat(step) FROM kernel) AS k,"
                               " (SELECT group_concat(step) FROM runtime_call)"
                               " AS r, (SELECT group_concat(o.step) FROM"
                               " cpu_op o JOIN string n ON n.id = o.name_id"
                               " WHERE n.text = 'aten::mm') AS o",
                               db=db).rows()[0]
                seen.add((q["s"], q["k"], q["r"], q["o"]))
            self.assertEqual(seen, {("3:250000:ProfilerStep,"
                                     "4:250000:ProfilerStep", "3,4", "3,4",
                                     "3,4")}, cat)

    def test_gpu_annotation_second_source(self):
        ev = [X("gpu_user_annotation", "ProfilerStep#7", 90, 200, pid=0,
                tid=7),
              X("kernel", "gemm_kernel", 100, 30, pid=0, tid=7),
              X("gpu_user_annotation", "ProfilerStep#8", 300, 100, pid=0,
                tid=7),
              X("kernel", "gemm_kernel", 320, 30, pid=0, tid=7)]
        self.ingest_ok(self.write("gpu.json", ev))
        self.assertEqual(self.sql("SELECT step, dur, source FROM step"),
                         [{"step": "7", "dur": "200000",
                           "source": "gpu ProfilerStep"},
                          {"step": "8", "dur": "100000",
                           "source": "gpu ProfilerStep"}])
        self.assertEqual([x["step"] for x in self.sql(
            "SELECT step FROM kernel ORDER BY ts")], ["7", "8"])
        # a CPU ProfilerStep wins over the GPU side for its rank
        ev.append(X("user_annotation", "ProfilerStep#7", 50, 400))
        self.ingest_ok(self.write("both.json", ev, rank=1))
        self.assertEqual(self.sql("SELECT step, source FROM step WHERE"
                                  " rank = 1"),
                         [{"step": "7", "source": "ProfilerStep"}])


# one example kernel name per comm_pattern row, and what it is
COMM_NAMES = {
    "ncclKernel_*": ("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)",
                     "all_reduce"),
    "ncclDevKernel_*": ("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)",
                        "other"),
    "nccl*Kernel*": ("ncclAllReduceRingLLKernel_sum_f32(ncclColl)",
                     "all_reduce"),
    "mscclKernel_*": ("mscclKernel_Sum_float_LL(int, int)", "other"),
    "*multimem_all_reduce*": (
        "void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16,"
        " 16>(c10::BFloat16*, unsigned long)", "all_reduce"),
    "*multimem_one_shot_all_reduce*": (
        "void c10d::symmetric_memory::multimem_one_shot_all_reduce_kernel<float,"
        " 4>(float*)", "all_reduce"),
    "*multimem_all_gather*": ("multimem_all_gather_kernel<16>(char*)",
                              "all_gather"),
    "*one_shot_all_reduce*": ("one_shot_all_reduce_kernel<float, 8>(float*)",
                              "all_reduce"),
    "*two_shot_all_reduce*": ("two_shot_all_reduce_kernel<float, 8>(float*)",
                              "all_reduce"),
    "*cross_device_reduce*": (
        "void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*,"
        " vllm::RankSignals, vllm::Signal*, __nv_bfloat16*, int, int)",
        "all_reduce"),
    "*oneShotAllReduce*": (
        "void tensorrt_llm::kernels::oneShotAllReduceKernel<half, 8, false>"
        "(tensorrt_llm::kernels::AllReduceParams)", "all_reduce"),
    "*twoShotAllReduce*": (
        "void tensorrt_llm::kernels::twoShotAllReduceKernel<half, 8, false>"
        "(tensorrt_llm::kernels::AllReduceParams)", "all_reduce"),
    "*allreduce_fusion_kernel*": (
        "void tensorrt_llm::kernels::ar_fusion::allreduce_fusion_kernel_oneshot"
        "_lamport<half, 8>(AllReduceFusionParams)", "all_reduce"),
    "*lamport*AllReduce*": (
        "void tensorrt_llm::kernels::lamportAllReduceKernel<half>(Params)",
        "all_reduce"),
    "*mscclpp*": ("void mscclpp::allreduce8<float>(float*)", "all_reduce"),
}
NOT_COMM = ("void at::native::reduce_kernel<512, 1>(ReduceOp)",
            "ampere_sgemm_128x64_nn", "splitKreduce_kernel<float>(p)")


class Communication(ProfanTest):

    def patterns(self):
        return {r["pattern"]: r for r in self.sql(
            "SELECT pattern, family, op FROM comm_pattern")}

    def test_a_kernel_per_pattern(self):
        """Every comm_pattern row has an example here; each example is
        communication in the view, both category schemes, the overlap
        sweep (by both paths) and the collective table, and so is nothing
        else."""
        self.ingest_ok(common.local("sample-run"))
        pats = self.patterns()
        self.assertEqual(set(pats), set(COMM_NAMES))
        for pat, (name, _) in COMM_NAMES.items():
            self.assertTrue(fnmatch.fnmatchcase(name, pat), pat)
        for name in NOT_COMM:
            self.assertFalse(any(fnmatch.fnmatchcase(name, p) for p in pats))
        ev, t = [], 100
        names = [n for n, _ in COMM_NAMES.values()] + list(NOT_COMM)
        for i, n in enumerate(names):
            ev.append(X("kernel", n, t, 10, pid=0, tid=7))
            t += 20
        path = os.path.join(self.tmp.name, "k.json")
        with open(path, "w") as f:
            json.dump({"traceEvents": ev}, f)
        for env in ({},):
            db = os.path.join(self.tmp.name, "c%d.db" % len(env))
            r = common.run("ingest", path, db=db, env=env)
            self.assertEqual(r.rc, 0, r.err)
            q = lambda s: common.run("--format", "csv", "sql", s, db=db).rows()
            self.assertEqual(sorted(x["name"] for x in q(
                "SELECT name FROM comm_kernel")),
                sorted(n for n, _ in COMM_NAMES.values()))
            cats = {(x["scheme"], x["name"]): x["category"] for x in q(
                "SELECT scheme, name, category FROM kernel_category")}
            for n, _ in COMM_NAMES.values():
                self.assertEqual(cats[("coarse", n)], "comm", n)
                self.assertEqual(cats[("detailed", n)], "NCCL / communication")
            for n in NOT_COMM:
                self.assertNotEqual(cats[("coarse", n)], "comm", n)
            ov = q("SELECT n_comm, comm_ns, comp_ns FROM comm_overlap")[0]
            self.assertEqual(int(ov["n_comm"]), len(COMM_NAMES))
            self.assertEqual(int(ov["comm_ns"]), 10000 * len(COMM_NAMES))
            self.assertEqual(int(ov["comp_ns"]), 10000 * len(NOT_COMM))
            ops = {x["name"]: x["op"] for x in q(
                "SELECT s.text AS name, c.op FROM collective c"
                " JOIN kernel k ON k.id = c.kernel_id"
                " JOIN string s ON s.id = k.name_id")}
            self.assertEqual(ops, {n: op for n, op in COMM_NAMES.values()})

    def test_b200_multimem_is_communication(self):
        path = shared("traces", "tracelens-b200-vllm-rank0.json.gz")
        evs = [e for e in common.events(path) if e.get("cat") == "kernel"]
        comm = [e for e in evs if "multimem_all_reduce" in e["name"]
                or e["name"].startswith(("ncclKernel_", "ncclDevKernel_"))]
        mm = [e for e in comm if "multimem_all_reduce" in e["name"]]
        self.assertGreater(len(mm), 0)
        iv = lambda es: [(us_to_ns(e["ts"]), us_to_ns(e["ts"])
                          + us_to_ns(e["dur"])) for e in es]
        self.ingest_ok(path)
        cats = self.query("category-breakdown", "--param", "scheme=coarse")
        c = {x["category"]: x for x in cats}
        self.assertEqual(int(c["comm"]["count"]), len(comm))
        ov = self.query("comm-overlap")[0]
        self.assertEqual(int(ov["comm_kernels"]), len(comm))
        self.assertAlmostEqual(float(ov["comm_ms"]), union_ns(iv(comm)) / 1e6,
                               places=3)
        coll = self.sql("SELECT op, count(*) AS n FROM collective"
                        " GROUP BY op ORDER BY op")
        self.assertIn({"op": "all_reduce", "n": str(len(mm))}, coll)
        # findings: exposed-comm (forced with threshold 0) counts the
        # multimem kernels: exposed = |comm ∪ comp| - |comp| per device,
        # over the GPU's traced time (first activity to last end: issue 31,
        # a share of the time it lies in, never above 100 %)
        comp = [e for e in evs if e not in comm]
        exposed = union_ns(iv(comm) + iv(comp)) - union_ns(iv(comp))
        gpu = [e for e in common.events(path)
               if kind_of(e) in ("kernel", "memcpy", "memset")
               and isinstance(e.get("ts"), (int, float))]
        self.assertEqual(len({e["pid"] for e in gpu}), 1)
        total = (max(us_to_ns(e["ts"]) + us_to_ns(e.get("dur", 0))
                     for e in gpu) - min(us_to_ns(e["ts"]) for e in gpu))
        pct = 100.0 * exposed / total
        no_mm = (union_ns(iv([e for e in comm if e not in mm]) + iv(comp))
                 - union_ns(iv(comp)))
        self.assertGreater(exposed, no_mm)      # the multimem share is real
        r = self.profan("--format", "json", "report", "--param",
                        "exposed-comm.threshold_pct=0")
        self.assertEqual(r.rc, 0, r.err)
        f = [x for x in r.json()["findings"] if x["rule"] == "exposed-comm"]
        self.assertEqual(len(f), 1)
        self.assertAlmostEqual(f[0]["value"], pct, places=2)


    def test_b200_multimem_in_stored_hta_metrics(self):
        """hta_compute_pct / hta_non_compute_pct (stored at ingest by
        derive_hta_metric.c, read by run_metric, trend and check) class
        multimem_all_reduce_kernel as communication, like the views: a
        temporal sweep per device over the trace JSON here."""
        path = shared("traces", "tracelens-b200-vllm-rank0.json.gz")
        gpu = [e for e in common.events(path)
               if kind_of(e) in ("kernel", "memcpy", "memset")
               and isinstance(e.get("ts"), (int, float))]

        def klass(e, mm_comm=True):
            n = e["name"]
            if kind_of(e) != "kernel" or "memcpy" in n.lower() \
                    or "memset" in n.lower():
                return 2                                   # memory
            if n.startswith(("ncclKernel_", "ncclDevKernel_")) or (
                    mm_comm and "multimem_all_reduce" in n):
                return 1                                   # communication
            return 0                                       # compute

        def breakdown(mm_comm):
            span = comp = non = 0
            for dev in sorted(set(e["pid"] for e in gpu), key=str):
                delta = {}
                for e in gpu:
                    if e["pid"] != dev:
                        continue
                    a = us_to_ns(e["ts"])
                    b = a + us_to_ns(e.get("dur", 0))
                    k = klass(e, mm_comm)
                    delta.setdefault(a, [0, 0, 0])[k] += 1
                    delta.setdefault(b, [0, 0, 0])[k] -= 1
                live = [0, 0, 0]
                pts = sorted(delta)
                for a, b in zip(pts, pts[1:]):
                    live = [x + d for x, d in zip(live, delta[a])]
                    span += b - a
                    if live[0] > 0:
                        comp += b - a
                    elif live[1] > 0 or live[2] > 0:
                        non += b - a
            return 100.0 * comp / span, 100.0 * non / span

        self.assertTrue(any("multimem_all_reduce_kernel" in e["name"]
                            for e in gpu))
        want = breakdown(True)
        as_compute = breakdown(False)
        self.assertGreater(want[1] - as_compute[1], 1.0)   # it matters
        self.ingest_ok(path)
        m = {x["metric"]: float(x["value"]) for x in self.sql(
            "SELECT metric, value FROM run_metric WHERE metric IN"
            " ('hta_compute_pct', 'hta_non_compute_pct')")}
        self.assertAlmostEqual(m["hta_compute_pct"], want[0], places=6)
        self.assertAlmostEqual(m["hta_non_compute_pct"], want[1], places=6)
        # the view that sweeps on demand agrees (rounded to 2 decimals)
        tb = self.query("temporal-breakdown")
        self.assertEqual(len(tb), 1)
        self.assertAlmostEqual(float(tb[0]["compute_pct"]), want[0], places=2)
        self.assertAlmostEqual(float(tb[0]["non_compute_pct"]), want[1],
                               places=2)

class Thresholds(ProfanTest):

    def test_fragmentation_query_and_rule_agree(self):
        """On every snapshot fixture each rule fires exactly where the
        query recommends its remedy (fragmentation: expandable_segments;
        reserved-unused: empty_cache); one row of advice_threshold moves a
        rule and its recommendation together."""
        import glob as g
        snaps = sorted(g.glob(os.path.join(common.SHARED, "snapshots", "*")))
        if not snaps:
            shared("snapshots", "tomi-small.pickle")
        pairs = (("expandable_segments", "fragmentation"),
                 ("empty_cache", "reserved-unused"))

        def verdicts():
            out = []
            for r in self.sql("SELECT id FROM run ORDER BY id"):
                q = self.query("fragmentation", run_ref=r["id"])
                rep = self.profan("--format", "json", "report",
                                  r["id"]).json()["findings"]
                for item, rule in pairs:
                    rec = [x for x in q if x["section"] == "recommendation"
                           and x["item"] == item]
                    out.append((item, sum(x["detail"].startswith(
                        "recommended") for x in rec),
                        len([f for f in rep if f["rule"] == rule])))
            return out

        def check(v):
            for item, a, b in v:
                self.assertEqual(a, b, v)
            return {(item, a) for item, a, _ in v}
        for p in snaps:
            self.profan("ingest", p)
        got = check(verdicts())
        # llm-inference-torch20: 19.7 % of reserved in 57 free cached
        # segments (reserved unused), 5.6 % fragmented: empty_cache, not
        # expandable_segments (the old rule said fragmentation for both)
        self.assertIn(("empty_cache", 1), got)
        self.assertNotIn(("expandable_segments", 1), got)
        import sqlite3
        con = sqlite3.connect(self.db)
        con.execute("UPDATE advice_threshold SET value = 5"
                    " WHERE advice = 'fragmentation' AND name = 'inactive_pct'")
        con.execute("UPDATE advice_threshold SET value = 30"
                    " WHERE advice = 'reserved-unused' AND name = 'unused_pct'")
        con.commit()
        con.close()
        got = check(verdicts())
        self.assertIn(("expandable_segments", 1), got)
        self.assertNotIn(("empty_cache", 1), got)


class Parameters(ProfanTest):

    def setUp(self):
        super().setUp()
        self.ingest_fixture(shared("runs", "dlrm-8rank"))

    def refused(self, args, msg):
        before = self.db_bytes()
        r = self.profan(*args)
        self.assertEqual(r.rc, 2, (args, r.err))
        self.assertEqual(r.err.strip(), "profan: " + msg)
        self.assertEqual(r.out, "")
        self.assertEqual(self.db_bytes(), before)

    def test_report_thresholds(self):
        for v in ("5%", "abc", "-1", "1e999"):
            self.refused(("report", "--param", "threshold_pct=" + v),
                         "bad value '%s' for parameter 'threshold_pct' of rule"
                         " 'copy-ops': it accepts a number >= 0 (no unit,"
                         " no '%%')" % v)
        self.refused(("report", "--param", "straggler.lost_pct=x"),
                     "bad value 'x' for parameter 'lost_pct' of rule"
                     " 'straggler': it accepts a number >= 0 (no unit, no '%')")
        self.refused(("report", "--param", "straggler.late_pct=60"),
                     "no rule has a parameter 'straggler.late_pct' (did you"
                     " mean 'straggler.lost_pct'?)")
        r = self.profan("report", "--param", "threshold_pct=5")
        self.assertEqual(r.rc, 0, r.err)
        # an empty value is the default, not NULL (which dropped findings)
        a = self.profan("--format", "csv", "report", "--section", "findings").out
        b = self.profan("--format", "csv", "report", "--section", "findings", "--param",
                        "threshold_pct=").out
        self.assertEqual(a, b)
        self.assertIn("straggler", a)

    def test_query_values(self):
        self.refused(("query", "top-kernels", "--param", "rank=one"),
                     "bad value 'one' for parameter 'rank' of query"
                     " 'top-kernels': it accepts a rank of run 1 (0-7)")
        self.refused(("query", "top-kernels", "--param", "rank=99"),
                     "bad value '99' for parameter 'rank' of query"
                     " 'top-kernels': it accepts a rank of run 1 (0-7)")
        self.refused(("query", "category-breakdown", "--param",
                      "scheme=nosuch"),
                     "bad value 'nosuch' for parameter 'scheme' of query"
                     " 'category-breakdown': it accepts a category scheme"
                     " (coarse, detailed)")
        self.refused(("query", "top-kernels", "--param", "kind=kernels"),
                     "bad value 'kernels' for parameter 'kind' of query"
                     " 'top-kernels': it accepts one of kernel|memcpy|memset")
        self.refused(("query", "top-kernels", "--param", "limit=2.5"),
                     "bad value '2.5' for parameter 'limit' of query"
                     " 'top-kernels': it accepts an integer >= 0")
        r = self.query("top-kernels", "--param", "rank=7", "--param",
                       "kind=kernel")
        self.assertGreater(len(r), 0)

    def test_diff_needs_a_baseline(self):
        self.refused(("query", "diff-kernels", "--run", "1"),
                     "query 'diff-kernels' needs parameter 'baseline'"
                     " (--param baseline=...): it accepts a run id, run name"
                     " or 'latest'")
        self.refused(("query", "diff-kernels", "--param", "baseline=nosuch"),
                     "bad value 'nosuch' for parameter 'baseline' of query"
                     " 'diff-kernels': it accepts a run id, run name or"
                     " 'latest'")
        # a run name is bound as its id: the run against itself
        name = self.sql("SELECT name FROM run")[0]["name"]
        rows = self.query("diff-kernels", "--param", "baseline=" + name)
        self.assertTrue(rows)
        # against itself nothing changed: 0.0 % is never "changed"
        self.assertEqual({x["status"] for x in rows} - {"folded"},
                         {"unchanged"})
        self.assertEqual({x["delta_pct"] for x in rows}, {"0.0"})
