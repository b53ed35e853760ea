"""test_summaries.py — the per-run summary tables of schema 009
(cpu_op_summary, cpu_op_shape_summary, cpu_op_flops_summary,
runtime_summary, step_kernel_summary).

They are filled at ingest by src/trace/derive_summary.c in one pass over the
raw rows.  The checks here are consistency checks (profan's summary rows
against GROUP BYs over profan's own raw rows, and one code path against
another); the numbers themselves are checked from the JSON in
test_trace_oracle.py (operator calls, self time, GPU records and time
launched per op; kernels per step) and test_trace_queries.py.  Here every
row is compared with a GROUP BY over the raw tables written in this file, on real fixtures, a two-rank run, a hand-written
trace with a checkpoint region, and a trace whose CPU ops the database
sweep nests (ops not in start order).  The migration case: a database
whose runs were ingested before 009 (its summary tables dropped, its
schema version set back) gets them back, equal, when a writing command
upgrades it, and the named queries that read them answer the same.

When the in-stream linker did all the linking, the trace writer
(src/trace/load_trace.c) totals the tables while inserting instead of
derive_summary.c reading the rows back; WriterTotals checks that this path
is taken and that it writes exactly what the database pass
(PROFAN_SUMMARY=db) writes, on every real fixture.
"""
import glob
import json
import os
import re
import sqlite3 as pysqlite
import subprocess

import common
from common import ProfanTest, local, shared
from test_trace_queries import tiny_trace

# Each summary table and the same totals computed from the raw tables.
EXPECTED = {
    "cpu_op_summary": """
        WITH op AS (
          SELECT o.id, o.run_id, o.rank, o.name_id,
            coalesce(p.name_id, 0) AS parent, o.dur,
            coalesce(o.self_dur, o.dur) AS self
          FROM cpu_op o LEFT JOIN cpu_op p ON p.id = o.parent_id),
        launch AS (SELECT op_id, dur FROM kernel
                   UNION ALL SELECT op_id, dur FROM gpu_mem_op),
        a AS (SELECT run_id, rank, name_id, parent, count(*) AS n,
                sum(dur) AS d, sum(self) AS s FROM op GROUP BY 1, 2, 3, 4),
        b AS (SELECT op.run_id, op.rank, op.name_id, op.parent, count(*) AS n,
                sum(l.dur) AS d
              FROM launch l JOIN op ON op.id = l.op_id GROUP BY 1, 2, 3, 4)
        SELECT a.run_id, a.rank, a.name_id, a.parent, a.n, a.d, a.s,
          coalesce(b.n, 0), coalesce(b.d, 0)
        FROM a LEFT JOIN b ON b.run_id = a.run_id AND b.rank = a.rank
          AND b.name_id = a.name_id AND b.parent = a.parent""",
    "cpu_op_shape_summary": """
        SELECT run_id, rank, name_id, input_dims_id, count(*) FROM cpu_op
        WHERE input_dims_id IS NOT NULL GROUP BY 1, 2, 3, 4""",
    "cpu_op_flops_summary": """
        WITH k AS (SELECT op_id, sum(dur) AS ns FROM kernel
                   WHERE op_id IS NOT NULL GROUP BY op_id)
        SELECT o.run_id, o.rank, o.name_id, o.flops_source, count(*),
          sum(o.flops), count(k.op_id),
          coalesce(sum(CASE WHEN k.op_id IS NOT NULL THEN o.flops END), 0),
          coalesce(sum(k.ns), 0)
        FROM cpu_op o LEFT JOIN k ON k.op_id = o.id
        WHERE o.flops IS NOT NULL GROUP BY 1, 2, 3, 4""",
    "runtime_summary": """
        WITH g AS (SELECT runtime_id, ts, dur, 1 AS is_k FROM kernel
                   UNION ALL SELECT runtime_id, ts, dur, 0 FROM gpu_mem_op),
        l AS (SELECT c.run_id, c.rank, c.name_id, c.kind, count(*) AS n,
                sum(g.ts - c.ts) AS delay, max(g.ts - c.ts) AS mx,
                sum(g.dur < 10000) AS short,
                sum(g.is_k AND c.in_recompute = 1) AS rk,
                sum(CASE WHEN g.is_k AND c.in_recompute = 1 THEN g.dur
                         ELSE 0 END) AS rk_ns
              FROM g JOIN runtime_call c ON c.id = g.runtime_id
              GROUP BY 1, 2, 3, 4),
        a AS (SELECT run_id, rank, name_id, kind, count(*) AS n,
                sum(dur) AS d, max(dur) AS m FROM runtime_call
              GROUP BY 1, 2, 3, 4)
        SELECT a.run_id, a.rank, a.name_id, a.kind, a.n, a.d, a.m,
          coalesce(l.n, 0), coalesce(l.delay, 0), l.mx, coalesce(l.short, 0),
          coalesce(l.rk, 0), coalesce(l.rk_ns, 0)
        FROM a LEFT JOIN l ON l.run_id = a.run_id AND l.rank = a.rank
          AND l.name_id = a.name_id AND l.kind = a.kind""",
    "step_kernel_summary": """
        SELECT run_id, rank, step, count(*), sum(dur) FROM kernel
        WHERE step IS NOT NULL GROUP BY 1, 2, 3""",
}

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


def schema_files():
    return sorted(glob.glob(os.path.join(common.ROOT, "schema", "[0-9][0-9][0-9]-*.sql")))


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

    def test_ops_nested_by_the_database_sweep(self):
        # CPU ops not written in start order: nesting is redone in the
        # database, and a parent can come after its children
        path = shared("traces", "kineto-resnet50-2021.pt.trace.json.gz")
        self.ingest_ok(path)
        self.assert_tables_match_group_by()

    def test_database_linker_fallback(self):
        r = self.profan("ingest", shared("traces", "hta-diff-control-a100-rank3.json.gz"),
                        env={"PROFAN_DB_LINK": "1"})
        self.assertEqual(r.rc, 0, r.err)
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


class OldRuns(ProfanTest):
    """Runs ingested before schema 009 get their summaries from the
    migration."""

    def outputs(self):
        res = []
        for run in ("1", "2", "3"):
            # rank must be a rank of the run (typed parameter, issue 13)
            low = self.sql("SELECT min(rank) AS r FROM run_file"
                           " WHERE run_id = %s" % run)[0]["r"]
            for q in QUERIES:
                args = [a.replace("rank=0", "rank=" + low) for a in q[1:]]
                r = self.profan("--format", "csv", "query", q[0], "--run", run, *args)
                self.assertEqual(r.rc, 0, r.err)
                res.append(r.out)
        return res

    def downgrade(self):
        """Make the database look as a profan before 009 left it."""
        files = schema_files()
        names = [os.path.basename(f) for f in files]
        k = names.index("009-query-summaries.sql")
        drops = []
        created = set()         # tables 009 and later create: dropped whole
        for f in files[k:]:
            text = open(f).read()
            # objects a file drops before creating them again (run_metric,
            # kernel_category) are older than it: they stay
            replaced = set(re.findall(
                r"DROP\s+(?:TABLE|INDEX|TRIGGER|VIEW)\s+(?:IF EXISTS\s+)?(\w+)",
                text, re.I))
            for kind, name in re.findall(
                    r"CREATE\s+(TABLE|INDEX|TRIGGER|VIEW)\s+(?:IF NOT EXISTS\s+)?(\w+)",
                    text, re.I):
                if name in replaced:
                    continue
                drops.append("DROP %s IF EXISTS %s;" % (kind.upper(), name))
                if kind.upper() == "TABLE":
                    created.add(name)
            # columns later files add to older tables go too
            for table, col in re.findall(
                    r"ALTER\s+TABLE\s+(\w+)\s+ADD\s+COLUMN\s+(\w+)", text, re.I):
                if table not in created:
                    drops.append("ALTER TABLE %s DROP COLUMN %s;" % (table, col))
        # a view a later file replaces (DROP, then CREATE again) goes
        # back to its last definition before 009: the newer one may read
        # a column dropped below (memory_summary, 051)
        restore = []
        for f in files[k:]:
            for name in re.findall(r"DROP\s+VIEW\s+(?:IF EXISTS\s+)?(\w+)",
                                   open(f).read(), re.I):
                old = None
                for g in files[:k]:
                    for m in re.finditer(r"CREATE\s+VIEW\s+%s\s+AS\b.*?;\n"
                                         % name, open(g).read(), re.I | re.S):
                        old = m.group(0)
                if old and old not in restore:
                    restore += ["DROP VIEW IF EXISTS %s;" % name, old]
        # views first, then columns: ALTER TABLE checks every view, which
        # must still find what it reads; then tables and indexes
        views = [d for d in drops if d.startswith("DROP VIEW")]
        alters = [d for d in drops if d.startswith("ALTER")]
        drops = [d for d in drops if not d.startswith(("ALTER", "DROP VIEW"))]
        sqlite3(self.db, "".join(views + restore + alters + drops)
                + "PRAGMA user_version=%d;" % k)
        tables = sqlite3(self.db, "SELECT name FROM sqlite_schema WHERE name IN (%s)"
                         % ",".join("'%s'" % t for t in EXPECTED))
        self.assertEqual(tables.strip(), "")
        return len(files)

    def test_migration_backfills_old_runs(self):
        self.ingest_ok(self.tiny_path())
        self.ingest_ok(shared("traces", "hta-diff-control-a100-rank3.json.gz"))
        self.ingest_ok(local("sample-run"))
        want_tables = {t: sqlite3(self.db, "SELECT * FROM %s ORDER BY 1, 2, 3, 4" % t)
                       for t in EXPECTED}
        want_out = self.outputs()
        nfiles = self.downgrade()
        # a read-only command refuses the old schema; a writing one migrates
        self.assertEqual(self.profan("query", "operators").rc, 1)
        r = self.profan("tag", "2", "migrated=yes")
        self.assertEqual(r.rc, 0, r.err)
        v = sqlite3(self.db, "PRAGMA user_version").strip()
        self.assertEqual(int(v), nfiles)
        for t, want in want_tables.items():
            got = sqlite3(self.db, "SELECT * FROM %s ORDER BY 1, 2, 3, 4" % t)
            if t == "cpu_op_flops_summary":
                # REAL sums: the SQL may add in another order
                self.assertEqual(len(got.splitlines()), len(want.splitlines()), t)
            else:
                self.assertEqual(got, want, t)
        self.assertEqual(self.outputs(), want_out)

    def tiny_path(self):
        p = os.path.join(self.tmp.name, "tiny.json")
        with open(p, "w") as f:
            json.dump(tiny_trace(), f)
        return p


# The columns of each summary table that hold string ids: compared by
# text, since two ingests of a multi-file run intern names in another order.
STRING_COLS = {"cpu_op_summary": (2, 3), "cpu_op_shape_summary": (2, 3),
               "cpu_op_flops_summary": (2,), "runtime_summary": (2,),
               "step_kernel_summary": ()}


def summary_dump(db):
    """Every summary table of db, string ids as texts, values exact."""
    con = pysqlite.connect(db)
    text = dict(con.execute("SELECT id, text FROM string"))
    res = {}
    for table, cols in STRING_COLS.items():
        rows = []
        for r in con.execute("SELECT * FROM %s" % table):
            r = list(r)
            for i in cols:
                r[i] = text.get(r[i], r[i])
            rows.append(tuple(r))
        res[table] = sorted(rows, key=repr)
    con.close()
    return res


class WriterTotals(ProfanTest):
    """The summaries totalled by the trace writer equal the database
    pass's, to the last bit of the FLOP sums."""

    rows = SummaryTables.rows
    assert_tables_match_group_by = SummaryTables.assert_tables_match_group_by

    def ingest_path(self, db, path, env=None):
        """Ingest path into db with PROFAN_TIMING; which summary path ran:
        'writer' or 'db'."""
        e = {"PROFAN_TIMING": "1"}
        e.update(env or {})
        r = common.run("ingest", path, db=db, env=e)
        self.assertEqual(r.rc, 0, r.err)
        db_pass = "derive summaries" in r.err
        self.assertNotEqual(db_pass, "derive sum. steps" in r.err, r.err)
        return "db" if db_pass else "writer"

    def compare(self, paths):
        """Ingest each of paths, one run each, with the default path and with
        PROFAN_SUMMARY=db; the tables must be identical.  Returns the path
        each took by default."""
        dbw = os.path.join(self.tmp.name, "writer.db")
        dbd = os.path.join(self.tmp.name, "dbpass.db")
        taken = {}
        for p in paths:
            taken[os.path.basename(p)] = self.ingest_path(dbw, p)
            self.assertEqual(self.ingest_path(dbd, p, {"PROFAN_SUMMARY": "db"}),
                             "db", p)
        got, want = summary_dump(dbw), summary_dump(dbd)
        for table in STRING_COLS:
            self.assertGreater(len(want[table]), 0, table)
            self.assertEqual(got[table], want[table], table)
        return taken

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

    def test_writer_path_taken(self):
        self.assertEqual(self.ingest_path(
            self.db, shared("traces", "hta-diff-control-a100-rank3.json.gz")),
            "writer")
        self.assertEqual(self.ingest_path(self.db, local("sample-run")), "writer")
        # the 2021 layout (ops in end order) is linked in-stream too
        self.assertEqual(self.ingest_path(
            self.db, shared("traces", "kineto-resnet50-2021.pt.trace.json.gz")),
            "writer")
        # the database links: its pass runs
        self.assertEqual(self.ingest_path(self.db, self.two_files_one_rank(),
                                          {"PROFAN_DB_LINK": "1"}), "db")
        self.assert_tables_match_group_by()

    def test_two_files_merged_by_final_rank(self):
        self.assertEqual(self.ingest_path(self.db, self.two_files_one_rank()),
                         "writer")
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
        writer already counted under step 1: derive moves it to step 2
        (the later start wins) and step_kernel_summary follows."""
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
        self.assertEqual(self.ingest_path(self.db, path), "writer")
        self.assertEqual(self.sql("SELECT step FROM kernel"), [{"step": "2"}])
        self.assertEqual(self.sql("SELECT step, kernels, kernel_ns"
                                  " FROM step_kernel_summary"),
                         [{"step": "2", "kernels": "1", "kernel_ns": "10000"}])
        self.assert_tables_match_group_by()

    def test_writer_equals_database_pass_on_real_fixtures(self):
        traces = sorted(glob.glob(os.path.join(common.SHARED, "traces", "*")))
        if not traces:
            shared("traces", "hta-diff-control-a100-rank3.json.gz")  # skip
        paths = traces + [shared("runs", "dlrm-8rank"), local("sample-run"),
                          self.two_files_one_rank()]
        taken = self.compare(paths)
        # every fixture is linked in-stream, the 2021 resnet trace (ops in
        # end order) included; dlrm's ProfilerStep annotations come late
        # (steps are redone in the database, and the writer's kernels per
        # step counted again)
        writer = sorted(k for k, v in taken.items() if v == "writer")
        self.assertIn("hta-diff-control-a100-rank3.json.gz", writer)
        self.assertIn("sample-run", writer)
        self.assertIn("run", writer)
        self.assertEqual(taken["kineto-resnet50-2021.pt.trace.json.gz"], "writer")
        self.assertEqual(taken["dlrm-8rank"], "writer")
        self.assertGreaterEqual(len(writer), len(traces) - 3, taken)
