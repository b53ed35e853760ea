"""test_bars.py — the bar and sparkline columns of the named queries.

Columns named *_bar (0..1), *_pct_bar (0..100) and *_spark (a list of
numbers) are drawn as bars and sparklines by `--format table` and printed
raw by csv/json (src/report/output.c).  Here: their raw values against shares and
series computed in Python from the fixture JSON (trace_reference.py, the
nesting sweep of test_trace_queries.py, the snapshot reference numbers in
expected/), and the glyphs the table draws for a small hand-written trace
whose shares are known exactly.
"""
import glob
import json
import os

import common
import trace_reference as ref
from common import ProfanTest, shared
from test_comm import is_nccl_kernel
from test_trace_queries import nesting_self_times

FULL = "\u2588"           # full block; OUTPUT_BAR_WIDTH (20) of them = 1.0
EIGHTHS = " \u258f\u258e\u258d\u258c\u258b\u258a\u2589"
SPARK = "\u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588"

# Rank 0: steps of 100, 200 and 400 us; kernels of 30 and 10 us.
TINY = {
    "schemaVersion": 1,
    "distributedInfo": {"rank": 0, "world_size": 1},
    "traceEvents": [
        {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1",
         "pid": 1, "tid": 1, "ts": 1000, "dur": 100},
        {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2",
         "pid": 1, "tid": 1, "ts": 1100, "dur": 200},
        {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3",
         "pid": 1, "tid": 1, "ts": 1300, "dur": 400},
        {"ph": "X", "cat": "kernel", "name": "kern_a", "pid": 0, "tid": 7,
         "ts": 1010, "dur": 30, "args": {"device": 0, "stream": 7}},
        {"ph": "X", "cat": "kernel", "name": "kern_b", "pid": 0, "tid": 7,
         "ts": 1110, "dur": 10, "args": {"device": 0, "stream": 7}},
    ],
}


def bar(f):
    """The bar output.c draws for fraction f (20 cells, 1/8 steps)."""
    n = int(min(max(f, 0.0), 1.0) * 20 * 8 + 0.5)
    return FULL * (n // 8) + EIGHTHS[n % 8].strip()


def table_cells(text, column):
    """Cells of `column` in a --format table output, one per row, found
    through the spans of the dashed separator line."""
    lines = text.rstrip("\n").split("\n")
    head, sep = lines[0], lines[1]
    spans, i = [], 0
    while i < len(sep):
        if sep[i] == "-":
            j = i
            while j < len(sep) and sep[j] == "-":
                j += 1
            spans.append((i, j))
            i = j
        else:
            i += 1
    names = [head[a:b].strip() for a, b in spans]
    a, b = spans[names.index(column)]
    last = names.index(column) == len(names) - 1
    return [(ln[a:] if last else ln[a:b]).strip() for ln in lines[2:]]


class TableDrawsBars(ProfanTest):
    """Glyphs for the hand-written trace TINY (exact shares)."""

    def setUp(self):
        super().setUp()
        path = os.path.join(self.tmp.name, "tiny.json")
        with open(path, "w") as f:
            json.dump(TINY, f)
        self.ingest_ok(path)

    def table(self, name):
        r = self.profan("query", name)
        self.assertEqual(r.rc, 0, r.err)
        return r.out

    def test_top_kernels_pct_bar(self):
        # 30 and 10 us of 40 us: 75 % and 25 %.
        rows = self.query("top-kernels")
        self.assertEqual([(r["name"], float(r["pct_bar"])) for r in rows],
                         [("kern_a", 75.0), ("kern_b", 25.0)])
        self.assertEqual(table_cells(self.table("top-kernels"), "pct_bar"),
                         [FULL * 15, FULL * 5])

    def test_steps_dur_bar(self):
        rows = self.query("steps")
        self.assertEqual([float(r["dur_bar"]) for r in rows],
                         [0.25, 0.5, 1.0])
        self.assertEqual(table_cells(self.table("steps"), "dur_bar"),
                         [FULL * 5, FULL * 10, FULL * 20])

    def test_rank_skew_step_spark_and_bar(self):
        rows = self.query("rank-skew")
        self.assertEqual(rows[0]["step_spark"], "0.1,0.2,0.4")
        self.assertEqual(float(rows[0]["step_bar"]), 1.0)
        t = self.table("rank-skew")
        self.assertEqual(table_cells(t, "step_spark"),
                         [SPARK[0] + SPARK[2] + SPARK[7]])
        self.assertEqual(table_cells(t, "step_bar"), [FULL * 20])

    def test_step_breakdown_busy_bar(self):
        # Step 1 holds kern_a (30 of 100 us), step 2 kern_b (10 of 200).
        rows = self.query("step-breakdown")
        got = [(r["step"], float(r["gpu_busy_pct_bar"])) for r in rows]
        self.assertEqual(got, [("1", 30.0), ("2", 5.0), ("3", 0.0)])
        self.assertEqual(table_cells(self.table("step-breakdown"),
                                     "gpu_busy_pct_bar"),
                         [FULL * 6, FULL, ""])

    def test_gpu_utilization_busy_bar(self):
        # busy 40 us of the 1010..1120 us span: 36.36 %, 58 eighths.
        rows = self.query("gpu-utilization")
        self.assertEqual(float(rows[0]["busy_pct_bar"]), 36.36)
        self.assertEqual(table_cells(self.table("gpu-utilization"),
                                     "busy_pct_bar"),
                         [FULL * 7 + "\u258e"])
        self.assertEqual(bar(0.3636), FULL * 7 + "\u258e")

    def test_json_keeps_raw_values(self):
        j = self.profan("--format", "json", "query", "rank-skew").json()
        self.assertEqual(j[0]["step_spark"], "0.1,0.2,0.4")
        self.assertEqual(j[0]["step_bar"], 1.0)


def documented_queries(text):
    """{query: ([parameter], [column])} from `profan queries --verbose`."""
    out, name, part = {}, None, None
    for line in text.split("\n"):
        if line and not line.startswith(" "):
            name, part = line.strip(), None
            out[name] = ([], [])
        elif line.strip() in ("parameters:", "columns:"):
            part = 0 if line.strip() == "parameters:" else 1
        elif name and part is not None and line.startswith("    "):
            out[name][part].append(line.split()[0])
    return out


class ColumnContract(ProfanTest):
    """Every named query returns exactly its documented columns, in
    order (the new bar and sparkline columns are documented too)."""

    def test_columns_as_documented(self):
        path = os.path.join(self.tmp.name, "tiny.json")
        with open(path, "w") as f:
            json.dump(TINY, f)
        self.ingest_ok(path)
        r = self.profan("queries", "--verbose")
        self.assertEqual(r.rc, 0, r.err)
        docs = documented_queries(r.out)
        self.assertIn("rank-skew", docs)
        for name, (params, cols) in sorted(docs.items()):
            extra = ["--param", "baseline=1"] if "baseline" in params else []
            q = self.profan("--format", "csv", "query", name, *extra)
            self.assertEqual(q.rc, 0, name + ": " + q.err)
            header = q.out.splitlines()[0].split(",")
            self.assertEqual(header, cols, name)


class SharesMatchTheTraces(ProfanTest):
    """Raw bar values against shares computed from the fixture JSON."""

    def dlrm(self):
        files = sorted(glob.glob(os.path.join(shared("runs", "dlrm-8rank"),
                                              "*.json.gz")))
        self.ingest_ok(shared("runs", "dlrm-8rank"))
        return {common.load_json(p)["distributedInfo"]["rank"]:
                common.events(p) for p in files}

    def test_dlrm_top_kernels_gpu_utilization_rank_skew(self):
        per_rank = self.dlrm()
        totals = {}
        for evs in per_rank.values():
            for e in evs:
                k = ref.kind_of(e)
                if k in ("kernel", "memcpy", "memset"):
                    key = (k, e["name"])
                    totals[key] = totals.get(key, 0) + max(
                        0, ref.us_to_ns(e.get("dur", 0)))
        whole = sum(totals.values())
        rows = self.query("top-kernels", "--limit", "100000")
        self.assertEqual(len(rows), len(totals))
        for r in rows:
            want = 100.0 * totals[(r["kind"], r["name"])] / whole
            self.assertAlmostEqual(float(r["pct_bar"]), want, delta=0.006,
                                   msg=r["name"])
        t = self.profan("query", "top-kernels", "--limit", "3").out
        self.assertEqual(table_cells(t, "pct_bar"),
                         [bar(float(r["pct_bar"]) / 100) for r in rows[:3]])

        util = {(int(r["rank"]), int(r["device"])): r
                for r in self.query("gpu-utilization")}
        for rank, evs in per_rank.items():
            for dev, (busy, wall) in ref.gpu_busy(evs).items():
                self.assertAlmostEqual(
                    float(util[(rank, dev)]["busy_pct_bar"]),
                    100.0 * busy / wall, delta=0.006)

        step_ns = {rank: ref.steps(evs) for rank, evs in per_rank.items()}
        mean = {rank: sum(s.values()) / len(s) for rank, s in step_ns.items()}
        slowest = max(mean.values())
        for r in self.query("rank-skew"):
            s = step_ns[int(r["rank"])]
            self.assertAlmostEqual(float(r["step_bar"]),
                                   mean[int(r["rank"])] / slowest,
                                   delta=0.00006)
            got = [float(v) for v in r["step_spark"].split(",")]
            want = [s[k] / 1e6 for k in sorted(s)]
            self.assertEqual(len(got), len(want))
            for g, w in zip(got, want):
                self.assertAlmostEqual(g, w, delta=0.0006)

    def test_dlrm_collectives_time_bar(self):
        per_rank = self.dlrm()
        rows = self.query("collectives", "--param", "limit=100000")
        self.assertTrue(rows)
        for rank, evs in per_rank.items():
            comm = sum(max(0, ref.us_to_ns(e.get("dur", 0))) for e in evs
                       if ref.kind_of(e) == "kernel"
                       and is_nccl_kernel(e["name"]))
            mine = [r for r in rows if int(r["rank"]) == rank]
            self.assertTrue(mine)
            for r in mine:
                self.assertAlmostEqual(float(r["time_bar"]),
                                       float(r["total_ms"]) * 1e6 / comm,
                                       delta=0.0006, msg=(rank, r["op"]))
            self.assertAlmostEqual(sum(float(r["time_bar"]) for r in mine),
                                   1.0, delta=0.001)

    def test_sample_run_steps_dur_bar(self):
        self.ingest_ok(common.local("sample-run"))
        want = {}
        for p in glob.glob(common.local("sample-run", "*.json.gz")):
            rank = common.load_json(p)["distributedInfo"]["rank"]
            want[rank] = ref.steps(common.events(p))
        rows = self.query("steps")
        self.assertEqual(len(rows), sum(len(s) for s in want.values()))
        for r in rows:
            s = want[int(r["rank"])]
            self.assertAlmostEqual(float(r["dur_bar"]),
                                   s[int(r["step"])] / max(s.values()),
                                   delta=0.00006)

    def test_operators_self_bar(self):
        path = shared("traces", "hta-alexnet-a100.json.gz")
        want = nesting_self_times(common.events(path))
        whole = sum(s for _, _, s in want.values())
        self.ingest_ok(path)
        rows = self.query("operators", "--limit", "1000")
        self.assertEqual(len(rows), len(want))
        for r in rows:
            self.assertAlmostEqual(float(r["self_bar"]),
                                   want[r["name"]][2] / whole,
                                   delta=0.00006, msg=r["name"])


class SnapshotShares(ProfanTest):
    """alloc-sources and alloc-churn bars against the snapshot reference
    numbers (expected/snapshot-*.json, from snapshot_reference.py)."""

    def test_cs336_alloc_bars(self):
        self.ingest_ok(shared("snapshots", "cs336-fullstep-2025.pickle"))
        here = os.path.dirname(os.path.abspath(__file__))
        with open(os.path.join(here, "expected",
                               "snapshot-cs336-fullstep-2025.pickle.json")) as f:
            exp = json.load(f)
        src = self.query("alloc-sources", "--param", "limit=1000000")
        self.assertTrue(src)
        for r in src:
            active = exp[r["device"]]["active_bytes"]
            self.assertAlmostEqual(float(r["pct_bar"]),
                                   100.0 * int(r["active_bytes"]) / active,
                                   delta=0.006)
        churn = self.query("alloc-churn", "--param", "limit=100000",
                           "--param", "min_mb=1")
        self.assertTrue(churn)
        for d, e in exp.items():
            mine = [r for r in churn if r["device"] == d]
            got = [[int(r["size_bytes"]), int(r["count"]),
                    int(r["total_bytes"])] for r in mine[:len(e["churn_top"])]]
            self.assertEqual(got, e["churn_top"])
            whole = sum(int(r["total_bytes"]) for r in mine)
            for r in mine:
                self.assertAlmostEqual(float(r["pct_bar"]),
                                       100.0 * int(r["total_bytes"]) / whole,
                                       delta=0.006)
