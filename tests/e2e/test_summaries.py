"""test_summaries.py — the per-run summary tables of schema 009
(cpu_op_summary, cpu_op_shape_summary, cpu_op_flops_summary,
runtime_summary, step_kernel_summary).

They are totalled as the rows come (src/trace/trace_totals.c), the one
implementation; their specification is tests/oracle/summaries.sql (a
GROUP BY over the raw tables), checked here on real fixtures, a two-rank
run, a hand-written trace with a checkpoint region (values known by
construction), the 2021 layout (ops in end order), two files of one rank
and a step that comes after a kernel was counted, and by test_oracle.py
on every fixture and order.  The numbers themselves are checked from the
JSON in test_trace_oracle.py and test_trace_queries.py.  Rebuilt:
summary tables emptied come back from `profan rebuild` (the stored rows
fed to the same totals) equal, and the named queries that read them
answer the same.
"""
import glob
import json
import os
import re
import sqlite3 as pysqlite
import subprocess

import common
from common import ProfanTest, local, shared
from test_oracle import specs
from test_trace_queries import tiny_trace

# Each summary table and its specification (tests/oracle/summaries.sql).
EXPECTED = {label: sql for label, _, sql in specs("summaries.sql")[1]}

# The named queries that read the summary tables (diff-ops: run 1 vs 2).
QUERIES = [("operators", "--param", "limit=1000"),
           ("operators", "--param", "order=calls", "--param", "rank=0"),
           ("launch-overhead", "--param", "limit=1000"),
           ("tflops",), ("checkpoint-recompute",), ("steps",),
           ("diff-ops", "--param", "baseline=1", "--param", "floor_pct=0"),
           # schema 030 backfills the annotation of each launch
           ("annotation-kernels", "--param", "limit=1000"),
           ("annotation-kernels", "--param", "by_step=1",
            "--param", "limit=1000")]


def sqlite3(db, sql):
    """Run sql with the stock sqlite3 shell; stdout."""
    p = subprocess.run(["sqlite3", "-csv", db], input=sql, text=True,
                       capture_output=True)
    if p.returncode != 0:
        raise AssertionError("sqlite3: " + p.stderr)
    return p.stdout


class SummaryTables(ProfanTest):

    def rows(self, sql):
        """Rows of sql as sorted lists of numbers (text kept as text)."""
        def num(v):
            try:
                return float(v)
            except ValueError:
                return v
        return sorted([[num(v) for v in r.values()] for r in self.sql(sql)],
                      key=lambda r: [str(v) for v in r])

    def assert_tables_match_group_by(self):
        for table, want_sql in EXPECTED.items():
            got = self.rows("SELECT * FROM %s" % table)
            want = self.rows(want_sql)
            self.assertEqual(len(got), len(want), table)
            for g, w in zip(got, want):
                self.assertEqual(len(g), len(w), table)
                for a, b in zip(g, w):
                    if isinstance(a, float) and isinstance(b, float):
                        self.assertAlmostEqual(a, b, delta=1e-9 * max(abs(b), 1),
                                               msg="%s %s %s" % (table, g, w))
                    else:
                        self.assertEqual(a, b, "%s %s %s" % (table, g, w))

    def tiny(self):
        p = os.path.join(self.tmp.name, "tiny.json")
        with open(p, "w") as f:
            json.dump(tiny_trace(), f)
        return p

    def test_real_traces_and_two_ranks(self):
        self.ingest_ok(shared("traces", "hta-diff-control-a100-rank3.json.gz"))
        self.ingest_ok(local("sample-run"))
        self.ingest_ok(self.tiny())
        n = {t: int(self.sql("SELECT count(*) AS n FROM %s" % t)[0]["n"])
             for t in EXPECTED}
        for t, k in n.items():
            self.assertGreater(k, 0, t)
        # the sample run has two ranks, the control trace FLOP estimates
        self.assertEqual(self.sql("SELECT count(DISTINCT rank) AS n FROM"
                                  " cpu_op_summary WHERE run_id = 2")[0]["n"], "2")
        self.assert_tables_match_group_by()

    def test_checkpoint_region_known_values(self):
        self.ingest_ok(self.tiny())
        rows = self.sql(
            "SELECT s.text AS name, coalesce(p.text, '') AS parent, c.calls,"
            " c.total_ns, c.self_ns, c.gpu_n, c.gpu_ns FROM cpu_op_summary c"
            " JOIN string s ON s.id = c.name_id"
            " LEFT JOIN string p ON p.id = c.parent_name_id ORDER BY name")
        got = {(r["name"], r["parent"]): [int(r[k]) for k in
               ("calls", "total_ns", "self_ns", "gpu_n", "gpu_ns")] for r in rows}
        # tiny_trace(): µs in the JSON, ns here
        self.assertEqual(got, {
            ("aten::zero_", ""): [1, 20000, 20000, 1, 40000],
            ("CheckpointFunctionBackward", ""): [1, 300000, 230000, 0, 0],
            ("aten::mm", "CheckpointFunctionBackward"): [1, 50000, 50000, 1, 100000],
            ("aten::relu", "CheckpointFunctionBackward"): [1, 20000, 20000, 1, 10000],
            ("aten::add", ""): [1, 20000, 20000, 1, 10000]})
        rt = self.sql("SELECT calls, launches, delay_ns, max_delay_ns,"
                      " short_launches, recompute_kernels, recompute_kernel_ns"
                      " FROM runtime_summary")
        # launch delays 15, 10, 35, 5 µs; relu (10 µs) and add (10 µs) are
        # not shorter than 10 µs; mm and relu run under the checkpoint op
        self.assertEqual([int(v) for v in rt[0].values()],
                         [4, 4, 65000, 35000, 0, 2, 110000])
        self.assert_tables_match_group_by()

    def test_ops_in_end_order(self):
        # the 2021 layout: each thread's CPU ops in end order (a parent
        # after its children)
        path = shared("traces", "kineto-resnet50-2021.pt.trace.json.gz")
        self.ingest_ok(path)
        self.assert_tables_match_group_by()

    def test_rm_deletes_summaries(self):
        self.ingest_ok(self.tiny())
        self.ingest_ok(local("sample-run"))
        r = self.profan("rm", "1")
        self.assertEqual(r.rc, 0, r.err)
        for t in EXPECTED:
            self.assertEqual(self.sql("SELECT count(*) AS n FROM %s WHERE run_id = 1"
                                      % t)[0]["n"], "0", t)
        self.assert_tables_match_group_by()


class Rebuilt(ProfanTest):
    """Summary tables emptied (as a schema file that changes how they are
    computed does) come back from `profan rebuild`, equal, and the named
    queries that read them answer the same (this replaced the test that
    downgraded a database past the development migration 009 and let the
    migration backfill it)."""

    def outputs(self):
        res = []
        for run in ("1", "2", "3"):
            # rank must be a rank of the run (typed parameter, issue 13)
            low = self.sql("SELECT min(rank) AS r FROM run_file"
                           " WHERE run_id = %s" % run)[0]["r"]
            for q in QUERIES:
                args = [a.replace("rank=0", "rank=" + low) for a in q[1:]]
                r = self.profan("--format", "csv", "query", q[0], "--run",
                                run, *args)
                self.assertEqual(r.rc, 0, r.err)
                res.append(r.out)
        return res

    def test_emptied_summaries_are_rebuilt(self):
        p = os.path.join(self.tmp.name, "tiny.json")
        with open(p, "w") as f:
            json.dump(tiny_trace(), f)
        self.ingest_ok(p)
        self.ingest_ok(shared("traces", "hta-diff-control-a100-rank3.json.gz"))
        self.ingest_ok(local("sample-run"))
        want_tables = {t: sqlite3(self.db, "SELECT * FROM %s ORDER BY 1, 2, 3, 4"
                                  % t) for t in EXPECTED}
        want_out = self.outputs()
        sqlite3(self.db, "".join("DELETE FROM %s;" % t for t in EXPECTED))
        self.assertEqual(sqlite3(self.db, "SELECT %s" % " + ".join(
            "(SELECT count(*) FROM %s)" % t for t in EXPECTED)), "0\n")
        r = self.profan("rebuild")
        self.assertEqual(r.rc, 0, r.err)
        for t, want in want_tables.items():
            got = sqlite3(self.db, "SELECT * FROM %s ORDER BY 1, 2, 3, 4" % t)
            if t == "cpu_op_flops_summary":
                # REAL sums: the pass may add in another order
                self.assertEqual(len(got.splitlines()), len(want.splitlines()), t)
            else:
                self.assertEqual(got, want, t)
        self.assertEqual(self.outputs(), want_out)
        self.assert_tables_match_group_by()

    assert_tables_match_group_by = SummaryTables.assert_tables_match_group_by
    rows = SummaryTables.rows


class WriterTotals(ProfanTest):
    """Totals whose rows come in an awkward order, with values known by
    construction."""

    rows = SummaryTables.rows
    assert_tables_match_group_by = SummaryTables.assert_tables_match_group_by

    def two_files_one_rank(self):
        """A run of two tiny traces that both end up rank 0, one of them
        first inserted as rank 7 (its file name) until its distributedInfo
        (written after the events) says 0."""
        d = os.path.join(self.tmp.name, "run")
        os.mkdir(d)
        for name in ("a_rank7.json", "b.json"):
            doc = tiny_trace()
            # a key no reader uses: not a copy (copies are loaded once)
            doc["profanTestFile"] = name
            with open(os.path.join(d, name), "w") as f:
                json.dump(doc, f)
        return d

    def test_two_files_merged_by_final_rank(self):
        self.ingest_ok(self.two_files_one_rank())
        rows = self.sql(
            "SELECT c.rank, s.text AS name, coalesce(p.text, '') AS parent,"
            " c.calls, c.total_ns, c.self_ns, c.gpu_n, c.gpu_ns"
            " FROM cpu_op_summary c JOIN string s ON s.id = c.name_id"
            " LEFT JOIN string p ON p.id = c.parent_name_id ORDER BY name")
        got = {(r["rank"], r["name"], r["parent"]): [int(r[k]) for k in
               ("calls", "total_ns", "self_ns", "gpu_n", "gpu_ns")] for r in rows}
        # twice test_checkpoint_region_known_values, all on rank 0
        self.assertEqual(got, {
            ("0", "aten::zero_", ""): [2, 40000, 40000, 2, 80000],
            ("0", "CheckpointFunctionBackward", ""): [2, 600000, 460000, 0, 0],
            ("0", "aten::mm", "CheckpointFunctionBackward"): [2, 100000, 100000, 2, 200000],
            ("0", "aten::relu", "CheckpointFunctionBackward"): [2, 40000, 40000, 2, 20000],
            ("0", "aten::add", ""): [2, 40000, 40000, 2, 20000]})
        rt = self.sql("SELECT rank, calls, launches, delay_ns, max_delay_ns,"
                      " short_launches, recompute_kernels, recompute_kernel_ns"
                      " FROM runtime_summary")
        self.assertEqual([[int(v) for v in r.values()] for r in rt],
                         [[0, 8, 8, 130000, 35000, 0, 4, 220000]])
        self.assert_tables_match_group_by()

    def test_late_step_moves_a_counted_kernel(self):
        """ProfilerStep#2 starts inside #1 and comes after a kernel the
        writer already counted under step 1: the file is linked again from
        its rows, the kernel moves to step 2 (the later start wins) and
        step_kernel_summary follows."""
        def X(cat, name, ts, dur, tid=1, **args):
            return {"ph": "X", "cat": cat, "name": name, "pid": 0 if cat ==
                    "kernel" else 1, "tid": 7 if cat == "kernel" else tid,
                    "ts": ts, "dur": dur, "args": args}
        ev = [
            X("user_annotation", "ProfilerStep#1", 100, 300),
            X("cpu_op", "aten::mm", 240, 20),
            X("cuda_runtime", "cudaLaunchKernel", 250, 2, correlation=1),
            X("kernel", "gemm_kernel", 255, 10, correlation=1),
            X("user_annotation", "ProfilerStep#2", 200, 100),
        ]
        path = os.path.join(self.tmp.name, "late.json")
        with open(path, "w") as f:
            json.dump({"traceEvents": ev, "distributedInfo": {"rank": 0}}, f)
        r = self.profan("ingest", path, env={"PROFAN_TIMING": "1"})
        self.assertEqual(r.rc, 0, r.err)
        self.assertIn("linked again from its rows", r.err)
        self.assertEqual(self.sql("SELECT step FROM kernel"), [{"step": "2"}])
        self.assertEqual(self.sql("SELECT step, kernels, kernel_ns"
                                  " FROM step_kernel_summary"),
                         [{"step": "2", "kernels": "1", "kernel_ns": "10000"}])
        self.assert_tables_match_group_by()
