"""test_trace_oracle.py — trace numbers checked against sweeps over the JSON.

Issue #23: several trace tests checked profan against itself (the step
breakdown's columns summing to a wall time defined as their sum, category
shares summing to 100 %, gaps never checked).  Here every number comes
from trace_reference.py's own sweeps over the fixture's events:

  step-breakdown      a priority sweep (kernel > memcpy > memset > comm >
                      runtime > cpu > idle) per rank, split at the
                      ProfilerStep#N annotations: every class of every step
  category-breakdown  each category's GPU time and count from a Python
                      classification (the category rules of
                      rules copied by hand into category_reference.py:
                      never read from profan's schema)
  idle-gaps           the gaps between the busy unions of each device
  kernel.step         the step of each kernel's launching runtime call
  operators           self time and the GPU time of the kernels each op
                      launched (kernel -> runtime call by correlation ->
                      innermost enclosing cpu_op on the same thread)

The 8-rank dlrm run is ingested once for the class (read-only tests).
"""
import bisect
import glob
import os
import re
import tempfile
import unittest

import common
import category_reference as cat_ref
import trace_reference as ref
from common import ProfanTest, shared

MS = 0.0006       # the queries round to 3 decimals of a millisecond


class DlrmOracle(ProfanTest):
    """The 8-rank dlrm run against sweeps over its JSON."""

    @classmethod
    def setUpClass(cls):
        cls.dir = shared("runs", "dlrm-8rank")
        cls.tmpc = tempfile.TemporaryDirectory()
        cls.dbc = os.path.join(cls.tmpc.name, "dlrm.db")
        r = common.run("ingest", cls.dir, db=cls.dbc)
        if r.rc != 0:
            raise AssertionError(r.err)
        cls.ranks = {}
        for p in sorted(glob.glob(os.path.join(cls.dir, "*.json.gz"))):
            doc = common.load_json(p)
            cls.ranks[doc["distributedInfo"]["rank"]] = doc["traceEvents"]

    @classmethod
    def tearDownClass(cls):
        cls.tmpc.cleanup()

    def setUp(self):
        super().setUp()
        self.db = self.dbc

    def test_step_breakdown_every_class_from_a_priority_sweep(self):
        self.assertEqual(len(self.ranks), 8)
        check_step_breakdown(self, self.ranks)

    def test_category_breakdown_from_a_python_classification(self):
        for scheme in ("detailed", "coarse"):
            rows = self.query("category-breakdown", "--param", "scheme=" + scheme)
            got = {(int(r["rank"]), r["category"]): r for r in rows}
            for rank, evs in self.ranks.items():
                want = {}
                for e in evs:
                    if ref.kind_of(e) in ("kernel", "memcpy", "memset"):
                        c = cat_ref.classify(e["name"], scheme)
                        n, t = want.get(c, (0, 0))
                        want[c] = (n + 1, t + max(0, ref.us_to_ns(e.get("dur", 0))))
                total = sum(t for _, t in want.values())
                self.assertEqual({c for r, c in got if r == rank}, set(want), (scheme, rank))
                for c, (n, t) in want.items():
                    r = got[(rank, c)]
                    with self.subTest(scheme=scheme, rank=rank, category=c):
                        self.assertEqual(int(r["count"]), n)
                        self.assertAlmostEqual(float(r["total_ms"]), t / 1e6, delta=MS)
                        self.assertAlmostEqual(float(r["pct"]), 100.0 * t / total, delta=0.006)

    def test_idle_gaps_between_busy_unions(self):
        rows = self.query("idle-gaps", "--param", "limit=100000")
        got = {}
        for r in rows:
            got.setdefault((int(r["rank"]), int(r["device"])), []).append(
                round(float(r["gap_ms"]) * 1e6))
        n = 0
        for rank, evs in self.ranks.items():
            for dev, gaps in ref.gpu_gaps(evs).items():
                kept = got.get((rank, dev), [])
                # up to 50 gaps per GPU are kept: the longest ones
                want = gaps[:50]
                with self.subTest(rank=rank, device=dev):
                    self.assertEqual(len(kept), len(want))
                    for g, w in zip(sorted(kept, reverse=True), want):
                        self.assertAlmostEqual(g, w, delta=600)
                n += len(want)
        self.assertGreater(n, 100)

    def test_operator_self_time_and_kernel_attribution(self):
        """Per rank and op name: calls, self time (duration minus the
        direct children's, on one thread) and the GPU time of the kernels
        whose runtime call lies inside the op's innermost enclosing call."""
        for rank, evs in self.ranks.items():
            want = op_reference(evs)
            rows = self.sql(
                "SELECT s.text AS name, sum(calls) AS calls, sum(self_ns) AS self,"
                " sum(gpu_n) AS gpu_n, sum(gpu_ns) AS gpu_ns FROM cpu_op_summary c"
                " JOIN string s ON s.id = c.name_id WHERE rank = %d GROUP BY s.text" % rank)
            got = {r["name"]: (int(r["calls"]), int(r["self"]), int(r["gpu_n"]),
                               int(r["gpu_ns"])) for r in rows}
            self.assertEqual(set(got), set(want), rank)
            for name, w in want.items():
                with self.subTest(rank=rank, op=name):
                    self.assertEqual(got[name], w)


def check_step_breakdown(t, ranks):
    """Every class of every (rank, step) row of step-breakdown against
    trace_reference.priority_sweep over the rank's events."""
    rows = t.query("step-breakdown")
    got = {(int(r["rank"]), int(r["step"]) if r["step"] else None): r for r in rows}
    cols = {c: c + "_ms" for c in ref.PRIORITY + ("idle",)}
    seen = set()
    for rank, evs in ranks.items():
        steps = ref.step_spans(evs)
        want = ref.priority_sweep(ref.class_intervals(evs), steps)
        slots = {s for s, _ in want}
        t.assertEqual({s for r, s in got if r == rank}, slots, rank)
        for slot in slots:
            r = got[(rank, slot)]
            for c, col in cols.items():
                with t.subTest(rank=rank, step=slot, cls=c):
                    t.assertAlmostEqual(float(r[col]), want.get((slot, c), 0) / 1e6,
                                        delta=MS)
            if slot is not None:        # a step's wall time is its duration
                s = [x for x in steps if x[2] == slot][0]
                t.assertAlmostEqual(float(r["wall_ms"]), (s[1] - s[0]) / 1e6, delta=MS)
        seen.update(c for (_, c), v in want.items() if v > 0)
    return seen


def op_reference(evs):
    """{op name: (calls, self_ns, gpu_n, gpu_ns)} with an independent stack
    sweep per thread (start order, longest first; a child is an op that
    lies entirely inside the open one) and launches attributed through
    the correlation id to the innermost op open at the runtime call."""
    ops = [e for e in evs if ref.kind_of(e) == "cpu_op"
           and isinstance(e.get("ts"), (int, float))]
    rt = {}
    for e in evs:
        if ref.kind_of(e) == "runtime" and "correlation" in e.get("args", {}):
            rt[e["args"]["correlation"]] = e
    # GPU records per correlation
    gpu = {}
    for e in evs:
        if ref.kind_of(e) in ("kernel", "memcpy", "memset"):
            c = e.get("args", {}).get("correlation")
            if c is not None:
                n, t = gpu.get(c, (0, 0))
                gpu[c] = (n + 1, t + max(0, ref.us_to_ns(e.get("dur", 0))))
    # runtime calls per thread, by start
    calls = {}
    for c, e in rt.items():
        calls.setdefault(e["tid"], []).append((ref.us_to_ns(e["ts"]), c))
    for v in calls.values():
        v.sort()
    res = {}
    by_tid = {}
    for e in ops:
        by_tid.setdefault(e["tid"], []).append(e)
    for tid, lst in by_tid.items():
        lst.sort(key=lambda e: (ref.us_to_ns(e["ts"]), -ref.us_to_ns(e.get("dur", 0))))
        frames = []          # [start, end, name, child_ns]
        closed = []          # (start, end, name, self_ns, depth-order index)
        stack = []
        for e in lst:
            s, t = ref.span(e)
            while stack and not (s >= stack[-1][0] and t <= stack[-1][1]):
                f = stack.pop()
                closed.append(f)
            if stack:
                stack[-1][3] += t - s
            f = [s, t, e["name"], 0, len(stack)]
            stack.append(f)
            frames.append(f)
        closed.extend(reversed(stack))
        # innermost op at each runtime call of this thread: the deepest
        # frame containing it
        starts = sorted(frames, key=lambda f: (f[0], -f[1]))
        launched = {}
        for ts, c in calls.get(tid, []):
            best = None
            i = bisect.bisect_right([f[0] for f in starts], ts)
            for f in starts[:i]:
                if f[0] <= ts < f[1] or (f[0] == ts == f[1]):
                    if best is None or f[4] > best[4]:
                        best = f
            if best is not None and c in gpu:
                n, t = launched.get(id(best), (0, 0))
                launched[id(best)] = (n + gpu[c][0], t + gpu[c][1])
        for f in frames:
            calls_, self_, gn, gt = res.get(f[2], (0, 0, 0, 0))
            n, t = launched.get(id(f), (0, 0))
            res[f[2]] = (calls_ + 1, self_ + max(0, f[1] - f[0] - f[3]), gn + n, gt + t)
    return res


class SixSteps(ProfanTest):
    """One rank, six ProfilerSteps, 109,000 events."""

    def test_step_breakdown_every_class_from_a_priority_sweep(self):
        path = shared("traces", "hta-diff-control-a100-rank3.json.gz")
        evs = common.events(path)
        self.assertEqual(len(ref.step_spans(evs)), 6)
        self.ingest_ok(path)
        rank = int(self.sql("SELECT DISTINCT rank FROM run_file")[0]["rank"])
        seen = check_step_breakdown(self, {rank: evs})
        # a non-trivial check: time in every class but comm
        self.assertTrue({"kernel", "memcpy", "memset", "runtime", "cpu", "idle"} <= seen,
                        seen)

    def test_kernels_get_the_step_of_their_launch(self):
        """kernel.step is the step whose ProfilerStep annotation holds the
        kernel's launching runtime call (by correlation); None outside."""
        path = shared("traces", "hta-diff-control-a100-rank3.json.gz")
        evs = common.events(path)
        steps = ref.step_spans(evs)
        self.assertGreater(len(steps), 1)
        rt = {e["args"]["correlation"]: e for e in evs
              if ref.kind_of(e) == "runtime" and "correlation" in e.get("args", {})}
        want = {}
        for e in evs:
            if ref.kind_of(e) != "kernel":
                continue
            r = rt[e["args"]["correlation"]]
            ts = ref.us_to_ns(r["ts"])
            st = [n for s, t, n in steps if s <= ts < t]
            k = st[0] if st else None
            want[k] = want.get(k, 0) + 1
        self.ingest_ok(path)
        got = {int(r["step"]) if r["step"] else None: int(r["n"]) for r in self.sql(
            "SELECT step, count(*) AS n FROM kernel GROUP BY step")}
        self.assertEqual(got, want)
        self.assertGreater(len([k for k in want if k is not None]), 1)


if __name__ == "__main__":
    unittest.main()


class GapCounts(ProfanTest):
    """gpu_busy's counts against the JSON on every trace fixture: n_gaps,
    idle_ns and largest_gap_ns are the gaps between a device's busy union
    (kernels, memcpys, memsets; touching intervals are one period, so a
    gap is never 0 ns long), busy_ns the union's length."""

    def test_every_fixture(self):
        paths = sorted(glob.glob(os.path.join(shared("traces"), "*.json*")))
        touching = 0
        for path in paths:
            with self.subTest(path=os.path.basename(path)):
                db = os.path.join(self.tmp.name,
                                  os.path.basename(path) + ".db")
                r = common.run("ingest", path, db=db)
                self.assertEqual(r.rc, 0, r.err)
                got = {int(x["device"]): x for x in common.run(
                    "--format", "json", "sql",
                    "SELECT device, n_gaps, idle_ns, largest_gap_ns, busy_ns"
                    " FROM gpu_busy", db=db).json()}
                evs = common.load_json(path)
                evs = evs["traceEvents"] if isinstance(evs, dict) else evs
                per = {}
                for e in evs:
                    if ref.kind_of(e) in ("kernel", "memcpy", "memset") \
                            and isinstance(e.get("ts"), (int, float)):
                        per.setdefault(e.get("pid"), []).append(ref.span(e))
                want = {}
                for dev, iv in per.items():
                    u = ref.merge(iv)
                    gaps = [b[0] - a[1] for a, b in zip(u, u[1:])]
                    want[dev] = (len(gaps), sum(gaps), max(gaps or [0]),
                                 sum(e - s for s, e in u))
                    srt = sorted(iv)
                    touching += sum(1 for a, b in zip(srt, srt[1:])
                                    if b[0] == a[1])
                self.assertEqual(set(got), {d for d in want
                                            if isinstance(d, int)}, path)
                for dev, w in want.items():
                    g = got[dev]
                    self.assertEqual((int(g["n_gaps"]), int(g["idle_ns"]),
                                      int(g["largest_gap_ns"]),
                                      int(g["busy_ns"])), w, (path, dev))
        # intervals that touch (one starts where another ends) are in the
        # fixtures: a gap of 0 ns counted would be seen
        self.assertGreater(touching, 100)
