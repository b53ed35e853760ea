"""test_trace_ids.py — the row ids of a trace file's operators and runtime
calls (schema 129, issue 35's footprint): id_base + n, n = 1, 2, ... per
table, with each file's range recorded in trace_id_base instead of the
linker's (file id << 32) + n, so that a new database numbers from 1 (ids
below 2^23 take 3 bytes as references, 4 as rowids, against 6 and 5).

The oracle is the rows themselves, read with Python's sqlite3:
  - dense: a new file's cpu_op ids are exactly base + 1 .. base + (its
    ops), its runtime_call ids base + 1 .. base + (its calls); the first
    file of a new database has base 0; a later ingest's file starts right
    above every id there is; the recorded id_last is the largest id used;
  - a database at the previous schema (128): made here from a new one by
    renumbering every operator and runtime-call id and every reference to
    them to (file id << 32) + n, as the builds before 129 stored them, and
    dropping trace_id_base.  The first writing command migrates it: its
    stored run keeps its ids (recorded base: file id << 32), answers the
    named queries as before and as after `profan rebuild`, and a run
    ingested after it answers them as the same trace in a new database
    does, with dense ids above the stored ones;
  - merge: a shard of the previous schema into a new database, a new
    shard into a new and into a migrated database: the merged run
    answers as its trace ingested alone, every operator and runtime call
    of a file lies in the file's recorded range, and `profan rebuild` of
    the merged run (which reads the ranges) answers the same.
"""
import gzip
import os
import shutil
import sqlite3

import common
from common import ProfanTest, shared

TRACE_A = "hta-diff-test-v100-rank1.json.gz"
TRACE_B = "hta-alexnet-a100.json.gz"
TRACE_C = "hta-mi250-rocm62.json.gz"

# queries whose answers name no row id
QUERIES = ("top-kernels", "operators", "op-kinds", "aten-op-kernels",
           "kernel-launch-stats", "launch-overhead", "step-breakdown",
           "category-breakdown", "run-metrics", "queue-length",
           "idle-breakdown", "tflops")

# every column holding an operator or runtime-call id (as merge.c maps
# them), by the table the id is of
REFS = (("cpu_op", "id", "cpu_op"), ("cpu_op", "parent_id", "cpu_op"),
        ("runtime_call", "id", "runtime_call"),
        ("runtime_call", "op_id", "cpu_op"),
        ("runtime_call", "top_op_id", "cpu_op"),
        ("kernel", "runtime_id", "runtime_call"),
        ("kernel", "op_id", "cpu_op"),
        ("gpu_mem_op", "runtime_id", "runtime_call"),
        ("gpu_mem_op", "op_id", "cpu_op"),
        ("op_gpu_time", "op_id", "cpu_op"),
        ("collective", "op_row", "cpu_op"))


def plain(tmp, name):
    """The fixture trace name uncompressed into folder tmp (a plain file:
    its reserved range is its bytes over 10, not gzip's bound)."""
    out = os.path.join(tmp, name[:-3])
    with gzip.open(shared("traces", name), "rb") as f, open(out, "wb") as g:
        shutil.copyfileobj(f, g)
    return out


def to_previous_schema(db):
    """Database db as a build before schema 129 stores it: operator and
    runtime-call ids (file id << 32) + n, no trace_id_base."""
    con = sqlite3.connect(db)
    con.execute("CREATE TEMP TABLE m AS SELECT file_id AS f, id_base AS b,"
                " id_last AS l FROM trace_id_base")
    new = ("coalesce((SELECT (m.f << 32) + (%s - m.b) FROM m"
           " WHERE %s > m.b AND %s <= m.l), %s)")
    for tbl, col, _ in REFS:
        con.execute("UPDATE %s SET %s = %s WHERE %s IS NOT NULL"
                    % (tbl, col, new % ((col,) * 4), col))
    con.execute("UPDATE coll_args SET row_id = %s WHERE src = 'cpu_op'"
                % (new % (("row_id",) * 4)))
    for c in ("lo", "hi"):
        con.execute("UPDATE run_rowid_range SET %s = %s WHERE tbl IN"
                    " ('cpu_op', 'runtime_call')" % (c, new % ((c,) * 4)))
    con.execute("DROP TABLE trace_id_base")
    con.execute("DELETE FROM table_role WHERE name = 'trace_id_base'")
    con.execute("PRAGMA user_version = 128")
    con.commit()
    con.close()


class TraceIdsTest(ProfanTest):

    def rows(self, sql, db=None):
        con = sqlite3.connect(db or self.db)
        out = con.execute(sql).fetchall()
        con.close()
        return out

    def files(self, db=None):
        """[(file_id, id_base, id_last)] of every trace file."""
        return self.rows("SELECT file_id, id_base, id_last FROM trace_id_base"
                         " ORDER BY file_id", db)

    def assert_dense(self, f, base, last):
        ops = [r[0] for r in self.rows(
            "SELECT id FROM cpu_op WHERE file_id = %d ORDER BY id" % f)]
        rts = [r[0] for r in self.rows(
            "SELECT id FROM runtime_call WHERE file_id = %d ORDER BY id"
            % f)]
        self.assertTrue(ops and rts)
        self.assertEqual(ops, list(range(base + 1, base + 1 + len(ops))))
        self.assertEqual(rts, list(range(base + 1, base + 1 + len(rts))))
        self.assertEqual(last, base + max(len(ops), len(rts)))

    def answers(self, run, db=None):
        """{query: rows} of run; tflops's as a sorted list: it sorts by
        the rounded TFLOP, and a merge gives a tie another order (as on
        main at 5a1b8d3, before schema 129)."""
        if db:
            saved, self.db = self.db, db
        try:
            out = {q: self.query(q, run_ref=str(run)) for q in QUERIES}
            out["tflops"] = sorted(tuple(sorted(r.items()))
                                   for r in out["tflops"])
            return out
        finally:
            if db:
                self.db = saved

    def test_new_files_are_dense(self):
        a = plain(self.tmp.name, TRACE_A)
        b = plain(self.tmp.name, TRACE_B)
        self.ingest_ok(a)
        (f1, base1, last1), = self.files()
        self.assertEqual(base1, 0)
        self.assert_dense(f1, base1, last1)
        # a second ingest starts right above every id there is
        self.ingest_ok(b)
        (_, b1, l1), (f2, base2, last2) = self.files()
        self.assertEqual((b1, l1), (base1, last1))
        self.assertEqual(base2, last1)
        self.assert_dense(f2, base2, last2)
        # two files of one ingest: disjoint ranges, the first file's
        # reserved from its bytes (over 10) and shrunk to what it used
        db2 = os.path.join(self.tmp.name, "two.db")
        r = common.run("ingest", a, b, db=db2)
        self.assertEqual(r.rc, 0, r.err)
        saved, self.db = self.db, db2
        try:
            got = self.files()
            self.assertEqual(len(got), 2)
            self.assertEqual(got[0][1], 0)
            for f, base, last in got:
                self.assert_dense(f, base, last)
            self.assertGreaterEqual(got[1][1], got[0][2])
            self.assertLess(got[1][2], 1 << 23)
        finally:
            self.db = saved
        # the largest id in all: 3-byte integers
        top = self.rows("SELECT max(id) FROM cpu_op")[0][0]
        self.assertLess(top, 1 << 23)

    def fresh(self, name):
        """(plain trace path, its database, its answers): fixture trace
        name ingested alone into a new database, the oracle's answers."""
        path = plain(self.tmp.name, name)
        db = os.path.join(self.tmp.name, name + ".db")
        r = common.run("ingest", path, db=db)
        self.assertEqual(r.rc, 0, r.err)
        return path, db, self.answers(1, db)

    def test_previous_schema_migrates(self):
        _, fresh_a, want_a = self.fresh(TRACE_A)
        b, fresh_b, want_b = self.fresh(TRACE_B)
        self.assertTrue(want_a["operators"] and want_b["operators"])
        # the previous schema, a run stored
        shutil.copyfile(fresh_a, self.db)
        to_previous_schema(self.db)
        f1 = self.rows("SELECT id FROM run_file")[0][0]
        old_ids = self.rows("SELECT min(id), max(id) FROM cpu_op")[0]
        self.assertEqual(old_ids[0] >> 32, f1)
        self.ingest_ok(b)
        self.assertEqual(int(self.rows("PRAGMA user_version")[0][0]),
                         common.schema_version())
        # the stored run: its ids as they were, its range recorded
        self.assertEqual(self.rows("SELECT min(id), max(id) FROM cpu_op"
                                   " WHERE run_id = 1")[0], old_ids)
        got = self.files()
        self.assertEqual(got[0], (f1, f1 << 32, (f1 << 32) + 2**32 - 1))
        # the new run: dense, above every stored id
        f2, base2, last2 = got[1]
        self.assertGreaterEqual(base2, old_ids[1])
        self.assert_dense(f2, base2, last2)
        self.assertEqual(self.answers(1), want_a)
        self.assertEqual(self.answers(2), want_b)
        # the stored run's derived rows computed again from its raw rows
        r = self.profan("rebuild", "1")
        self.assertEqual(r.rc, 0, r.err)
        self.assertEqual(self.answers(1), want_a)
        self.assertEqual(self.answers(2), want_b)

    def assert_in_ranges(self):
        """Every operator and runtime call inside its file's range, each
        table's first at id_base + 1 (n = 1)."""
        for tbl in ("cpu_op", "runtime_call"):
            out = self.rows(
                "SELECT count(*) FROM (SELECT file_id, min(id) AS lo"
                " FROM %s GROUP BY file_id) t JOIN trace_id_base b"
                " ON b.file_id = t.file_id WHERE t.lo <> b.id_base + 1" % tbl)
            self.assertEqual(out[0][0], 0, tbl)
            out = self.rows(
                "SELECT count(*) FROM %s t JOIN trace_id_base b"
                " ON b.file_id = t.file_id"
                " WHERE t.id <= b.id_base OR t.id > b.id_last" % tbl)
            self.assertEqual(out[0][0], 0, tbl)
            out = self.rows("SELECT count(*) FROM %s t WHERE NOT EXISTS"
                            " (SELECT 1 FROM trace_id_base b"
                            " WHERE b.file_id = t.file_id)" % tbl)
            self.assertEqual(out[0][0], 0, tbl)

    def test_merge_across_schemas(self):
        _, fresh_b, want_b = self.fresh(TRACE_B)
        _, fresh_c, want_c = self.fresh(TRACE_C)
        old_b = os.path.join(self.tmp.name, "old-b.db")
        old_c = os.path.join(self.tmp.name, "old-c.db")
        shutil.copyfile(fresh_b, old_b)
        shutil.copyfile(fresh_c, old_c)
        to_previous_schema(old_b)
        to_previous_schema(old_c)
        # a previous-schema shard into a new database with a run
        shutil.copyfile(fresh_b, self.db)
        self.merge_as_alone(old_c, want_c, want_b)
        # a new shard into a new database with a run (more operators than
        # runtime calls: both tables move by one offset)
        self.db = os.path.join(self.tmp.name, "new.db")
        shutil.copyfile(fresh_b, self.db)
        n = self.rows("SELECT (SELECT max(id) FROM cpu_op),"
                      " (SELECT max(id) FROM runtime_call)")[0]
        self.assertNotEqual(n[0], n[1])
        self.merge_as_alone(fresh_c, want_c, want_b)
        # a new shard into a database of the previous schema with a run
        self.db = old_b
        self.merge_as_alone(fresh_c, want_c, want_b)

    def merge_as_alone(self, shard, want, want_1):
        """Merge shard into this test's database as run m: its files' ids
        in their ranges, m answering want (its trace alone) before and
        after a rebuild, run 1 still want_1."""
        r = self.profan("merge", "--into", self.db, "--name", "m", shard)
        self.assertEqual(r.rc, 0, r.err)
        self.assert_in_ranges()
        self.assertEqual(self.answers("m"), want)
        self.assertEqual(self.answers(1), want_1)
        r = self.profan("rebuild", "m")
        self.assertEqual(r.rc, 0, r.err)
        self.assertEqual(self.answers("m"), want)
