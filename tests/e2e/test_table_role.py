"""test_table_role.py — the table catalogue (table_role, schema/001-baseline.sql)
and the commands that read it instead of lists of their own.

- Every table of a new database has exactly one role, every role row
  names a table, and the roles are consistent with the columns (raw
  tables have run_id and an input kind; parameter and catalogue tables
  hold no run's rows; a table with a file_id is raw or derived): adding an
  analysis without classifying its table fails here.
- A table that holds a run's rows (run_id) but has no role makes rm,
  merge and rebuild refuse with one line, leaving the database as it was.
- rm leaves no row of the run in any table with a run_id, and in a
  `merge --summaries-only` history keeps the strings the other runs'
  summary rows name (the string list used to be the raw tables': a
  history, which has none, lost every name).
- merge --summaries-only copies exactly the tables marked summary; a
  shard merge copies the run, raw and derived_rank tables and computes the
  derived_run ones again (compared with the catalogue read by Python).
"""
import os
import sqlite3
import subprocess

import common
from common import ProfanTest, PROFAN, local, shared

ROLES = {"run", "history", "raw", "derived_rank", "derived_run", "parameter",
         "catalogue", "scratch"}
PER_RUN = {"run", "history", "raw", "derived_rank", "derived_run", "scratch"}


def catalogue(db):
    """{table: (role, input_kind, summary)} and {table: [columns]} of db,
    read with Python's sqlite3."""
    con = sqlite3.connect(db)
    try:
        roles = {n: (r, k, s) for n, r, k, s in con.execute(
            "SELECT name, role, input_kind, summary FROM table_role")}
        cols = {t: [c[1] for c in con.execute('PRAGMA table_info("%s")' % t)]
                for (t,) in con.execute(
                    "SELECT name FROM sqlite_schema WHERE type = 'table'"
                    " AND name NOT LIKE 'sqlite_%'")}
        return roles, cols
    finally:
        con.close()


def counts(db, run_id):
    """{table: rows of run run_id} over the tables with a run_id."""
    con = sqlite3.connect(db)
    try:
        out = {}
        for (t,) in con.execute("SELECT name FROM sqlite_schema m WHERE"
                                " type = 'table' AND EXISTS (SELECT 1 FROM"
                                " pragma_table_info(m.name) WHERE name ="
                                " 'run_id')"):
            out[t] = con.execute('SELECT count(*) FROM "%s" WHERE run_id = ?'
                                 % t, (run_id,)).fetchone()[0]
        return out
    finally:
        con.close()


def rows_by_text(db, t):
    """The rows of table t, sorted, with its string ids as their texts
    (two databases intern names in another order)."""
    con = sqlite3.connect(db)
    try:
        text = dict(con.execute("SELECT id, text FROM string"))
        cols = [c[1] for c in con.execute('PRAGMA table_info("%s")' % t)]
        strs = {c for (c,) in con.execute(
            "SELECT col FROM table_string_column WHERE tbl = ?", (t,))}
        return sorted((tuple(text.get(v, v) if c in strs else v
                             for c, v in zip(cols, r))
                       for r in con.execute('SELECT * FROM "%s"' % t)),
                      key=repr)
    finally:
        con.close()


class Catalogue(ProfanTest):

    def test_every_table_of_a_new_database_has_a_role(self):
        self.ingest_ok(shared("traces", "hta-triton.json.gz"))
        roles, cols = catalogue(self.db)
        self.assertGreater(len(cols), 70)
        self.assertEqual(sorted(t for t in cols if t not in roles), [],
                         "tables without a row in table_role")
        self.assertEqual(sorted(t for t in roles if t not in cols), [],
                         "table_role rows naming no table")
        self.assertEqual({r for r, _, _ in roles.values()}, ROLES)
        for t, (role, kind, summary) in roles.items():
            with self.subTest(table=t):
                c = cols[t]
                if role == "raw":
                    self.assertIn("run_id", c)
                    self.assertIn(kind, ("trace", "snapshot",
                                         "flight_recorder", "nccl_log"))
                else:
                    self.assertIsNone(kind)
                if role in ("parameter", "catalogue"):
                    self.assertNotIn("run_id", c)
                if "file_id" in c:
                    self.assertIn(role, ("raw", "derived_rank",
                                         "derived_run"))
                if role in PER_RUN and t != "run":
                    self.assertIn("run_id", c)
                if summary:
                    self.assertIn(role, ("run", "history", "raw",
                                         "derived_rank", "derived_run"))
        # what a history keeps: identity, steps, summaries, run metrics
        self.assertEqual(sorted(t for t, v in roles.items() if v[2]), [
            "baseline", "comm_overlap", "core_run_metric", "cpu_op_summary",
            "device", "gpu_busy", "gpu_op_summary", "hta_run_metric",
            "op_run_metric", "run", "run_file", "run_tag", "snapshot", "step",
            "step_kernel_summary", "step_time"])

    def test_the_kinds_a_run_file_has_are_the_raw_tables_kinds(self):
        # the run_file.kind values an ingest writes, one input of each kind
        self.ingest_ok(local("sample-run"), shared("snapshots",
                                                   "tomi-small.pickle"),
                       local("flight_recorder", "clean"),
                       shared("nccl", "ddp-2rank-interleaved.log"))
        roles, _ = catalogue(self.db)
        kinds = {r["kind"] for r in self.sql("SELECT kind FROM run_file")}
        self.assertEqual(kinds, {k for _, k, _ in roles.values() if k})
        # and each kind's raw tables got rows
        for kind in kinds:
            n = sum(counts(self.db, 1)[t] for t, v in roles.items()
                    if v[1] == kind)
            self.assertGreater(n, 0, kind)


class Unclassified(ProfanTest):
    """A table with a run_id and no role: rm, merge and rebuild refuse."""

    def test_refused_and_nothing_changed(self):
        self.ingest_ok(local("sample-run"), extra=("--name", "a"))
        subprocess.run(["sqlite3", self.db, "CREATE TABLE my_notes(run_id"
                        " INTEGER, note TEXT); INSERT INTO my_notes"
                        " VALUES(1, 'x')"], check=True)
        before = self.db_bytes()
        want = ("table my_notes has a run_id column but no role in"
                " table_role (CONTRIBUTING.md, \"Adding an analysis\"): its"
                " rows cannot be handled")
        r = self.profan("rm", "a")
        self.assertEqual(r.rc, 7)
        self.assertEqual(r.err, "profan: %s: %s; nothing removed\n"
                         % (self.db, want))
        r = self.profan("rebuild")
        self.assertEqual(r.rc, 7)
        self.assertEqual(r.err, "profan: %s: %s; nothing rebuilt\n"
                         % (self.db, want))
        shard = os.path.join(self.tmp.name, "shard.db")
        r = common.run("ingest", "-q", shared("traces", "hta-triton.json.gz"),
                       db=shard)
        self.assertEqual(r.rc, 0, r.err)
        r = common.run("merge", "--into", self.db, shard, db=None)
        self.assertEqual(r.rc, 7)
        self.assertEqual(r.err, "profan: %s\n" % want)
        self.assertEqual(self.db_bytes(), before)
        # classified, it is a run's rows like any other: rm deletes them
        subprocess.run(["sqlite3", self.db, "INSERT INTO table_role VALUES"
                        "('my_notes', 'derived_run', NULL, 0, 'notes')"],
                       check=True)
        r = self.profan("rm", "a")
        self.assertEqual(r.rc, 0, r.err)
        self.assertEqual(self.sql("SELECT count(*) AS n FROM my_notes"),
                         [{"n": "0"}])


class RmAndMerge(ProfanTest):

    def test_rm_leaves_no_row_of_the_run(self):
        self.ingest_ok(local("sample-run"), shared("snapshots",
                                                   "tomi-small.pickle"),
                       local("flight_recorder", "clean"),
                       shared("nccl", "ddp-2rank-interleaved.log"),
                       extra=("--name", "all"))
        self.ingest_ok(shared("traces", "hta-triton.json.gz"),
                       extra=("--name", "other"))
        r = self.profan("baseline", "set", "main", "all")
        self.assertEqual(r.rc, 0, r.err)
        before = counts(self.db, 1)
        other = counts(self.db, 2)
        self.assertGreater(sum(1 for n in before.values() if n), 30)
        r = self.profan("rm", "all")
        self.assertEqual(r.rc, 0, r.err)
        self.assertEqual({t: n for t, n in counts(self.db, 1).items() if n},
                         {})
        self.assertEqual(counts(self.db, 2), other)
        # the strings left are those the other run's rows name
        names = self.sql("SELECT count(*) AS n FROM string WHERE id NOT IN"
                         " (SELECT name_id FROM kernel UNION SELECT name_id"
                         " FROM cpu_op UNION SELECT name_id FROM"
                         " runtime_call UNION SELECT name_id FROM annotation"
                         " UNION SELECT input_dims_id FROM cpu_op UNION"
                         " SELECT input_types_id FROM cpu_op UNION SELECT"
                         " concrete_inputs_id FROM cpu_op)")
        self.assertEqual(names, [{"n": "0"}])

    def test_rm_in_a_history_keeps_the_other_runs_names(self):
        src = os.path.join(self.tmp.name, "src.db")
        for name, path in (("a", local("sample-run")),
                           ("b", shared("traces", "hta-triton.json.gz"))):
            r = common.run("ingest", "-q", "--name", name, path, db=src)
            self.assertEqual(r.rc, 0, r.err)
        r = common.run("merge", "--summaries-only", "--into", self.db, src,
                       db=None)
        self.assertEqual(r.rc, 0, r.err)
        sql = ("SELECT r.name AS run, s.text AS name FROM gpu_op_summary g"
               " JOIN run r ON r.id = g.run_id LEFT JOIN string s"
               " ON s.id = g.name_id WHERE r.name = 'b'")
        before = self.sql(sql)
        self.assertEqual([x["name"] for x in before],
                         ["triton_poi_fused_add_cos_sin_0"])
        r = self.profan("rm", "a")
        self.assertEqual(r.rc, 0, r.err)
        self.assertEqual(self.sql(sql), before)

    def test_summaries_only_copies_the_summary_tables(self):
        src = os.path.join(self.tmp.name, "src.db")
        r = common.run("ingest", "-q", "--name", "a", local("sample-run"),
                       shared("snapshots", "tomi-small.pickle"), db=src)
        self.assertEqual(r.rc, 0, r.err)
        r = common.run("tag", "a", "k=v", db=src)
        self.assertEqual(r.rc, 0, r.err)
        r = common.run("merge", "--summaries-only", "--into", self.db, src,
                       db=None)
        self.assertEqual(r.rc, 0, r.err)
        roles, _ = catalogue(self.db)
        had, got = counts(src, 1), counts(self.db, 1)
        for t, n in had.items():
            with self.subTest(table=t):
                if roles[t][2]:
                    self.assertEqual(got[t], n)
                else:
                    self.assertEqual(got[t], 0)
        self.assertGreater(sum(1 for t, n in got.items() if n), 10)

    def test_shard_merge_copies_and_derives_by_role(self):
        shard = os.path.join(self.tmp.name, "shard.db")
        r = common.run("ingest", "-q", "--name", "a", local("sample-run"),
                       db=shard)
        self.assertEqual(r.rc, 0, r.err)
        r = common.run("merge", "--into", self.db, shard, db=None)
        self.assertEqual(r.rc, 0, r.err)
        roles, _ = catalogue(self.db)
        had, got = counts(shard, 1), counts(self.db, 1)
        for t, n in had.items():
            role = roles[t][0]
            with self.subTest(table=t, role=role):
                if role in ("run", "raw", "derived_rank", "derived_run"):
                    # copied, or computed again from the copied rows
                    self.assertEqual(got[t], n)
                elif role == "history":
                    self.assertEqual(got[t], 0)
        self.assertGreater(got["collective"], 0)
        # one shard into a new target keeps its ids: the tables computed
        # again hold what the ingest stored (collective.op_row included:
        # the record_param_comms ops the loader notes are found again)
        for t in ("collective", "collective_window", "hta_critical_path",
                  "hta_run_metric", "core_run_metric"):
            self.assertEqual(rows_by_text(self.db, t), rows_by_text(shard, t),
                             t)


if __name__ == "__main__":
    import unittest
    unittest.main()
