"""test_schema_current.py — schema/current.sql is what the schema files
make.

scripts/schema_current.py has the built profan create a database and
compares its schema (read back with Python's sqlite3) with the committed
schema/current.sql; a schema file added without regenerating the file, or
a hand edit of it, fails here.  Each object is noted with the files that
create it, the last one's definition shown (checked on a scratch pair of
files).

SchemaImage: a new database is written from the image of the database
the migrations make (tools/schema_image.c, built in; db.c image_write)
instead of replaying them.  The test makes one database that way (ingest
into a path that does not exist) and one by replaying every migration
(ingest into an existing empty file: db.c migrates it from version 0),
ingests the same trace into both and removes the run again, then
compares everything Python's sqlite3 reads: the header settings, every
sqlite_schema row (rowid, type, name, table, SQL, in rowid order) and
every row of every table.
"""
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import unittest

import sqlite3

import common


class SchemaCurrent(unittest.TestCase):
    def test_current_sql_matches_the_schema_files(self):
        script = os.path.join(common.ROOT, "scripts", "schema_current.py")
        r = subprocess.run([sys.executable, script, common.PROFAN, "--check"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(r.stdout.strip(), "schema/current.sql is current")

    def test_a_redefined_view_is_noted_with_its_last_file(self):
        # two schema files of a scratch directory: the baseline and a later
        # file (a gap in the numbers) that redefines a view
        spec = importlib.util.spec_from_file_location(
            "schema_current", os.path.join(common.ROOT, "scripts",
                                           "schema_current.py"))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        d = tempfile.mkdtemp(dir=self.tmp.name)
        with open(os.path.join(d, "001-baseline.sql"), "w") as f:
            f.write("-- CREATE VIEW in_a_comment AS SELECT 1;\n"
                    "CREATE TABLE t(x);\nCREATE VIEW v AS SELECT x FROM t;\n")
        with open(os.path.join(d, "101-gate.sql"), "w") as f:
            f.write("DROP VIEW v;\nCREATE VIEW v AS SELECT x + 1 AS x FROM t;"
                    "\nCREATE INDEX IF NOT EXISTS t_x ON t(x);\n")
        where = mod.definers(d)
        self.assertEqual(where, {"t": ["001"], "v": ["001", "101"],
                                 "t_x": ["101"]})
        self.assertEqual(mod.note("view", "v", where["v"]),
                         "view v: created in 001, 101; this is 101's"
                         " definition")
        self.assertEqual(mod.note("table", "t", where["t"]), "table t: 001")
        self.assertEqual(mod.note("index", "kernel_run", []),
                         "index kernel_run: made by the ingest (C)")

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

TRACE = ('{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k",'
         ' "pid": 0, "tid": 7, "ts": 1, "dur": 1}]}')


def everything(path):
    """{what: value} of the database at path: PRAGMA settings, the
    sqlite_schema rows in order and each table's rows (sorted)."""
    con = sqlite3.connect(path)
    out = {}
    for k in ("user_version", "application_id", "page_size", "encoding",
              "auto_vacuum", "journal_mode", "page_count",
              "freelist_count"):
        out["pragma " + k] = con.execute("PRAGMA %s" % k).fetchone()[0]
    out["integrity_check"] = con.execute(
        "PRAGMA integrity_check").fetchall()
    out["sqlite_schema"] = con.execute(
        "SELECT rowid, type, name, tbl_name, sql FROM sqlite_schema"
        " ORDER BY rowid").fetchall()
    for (t,) in con.execute("SELECT name FROM sqlite_schema"
                            " WHERE type='table'").fetchall():
        rows = con.execute('SELECT * FROM "%s"' % t).fetchall()
        out["table " + t] = sorted(rows, key=repr)
    con.close()
    return out


class SchemaImage(common.ProfanTest):
    def test_image_is_the_replayed_database(self):
        trace = os.path.join(self.tmp.name, "t.json")
        with open(trace, "w") as f:
            f.write(TRACE)
        image = os.path.join(self.tmp.name, "image.db")
        replay = os.path.join(self.tmp.name, "replay.db")
        open(replay, "w").close()       # empty: migrated from version 0
        for db in (image, replay):
            r = common.run("ingest", "-q", "--name", "t", trace, db=db)
            self.assertEqual(r.rc, 0, r.err)
            r = common.run("rm", "t", db=db)
            self.assertEqual(r.rc, 0, r.err)
        a, b = everything(image), everything(replay)
        self.assertEqual(sorted(a), sorted(b))
        for k in a:
            self.assertEqual(a[k], b[k], k)
        # the rows the migrations insert are there (rule tables, ...)
        self.assertGreater(len(a["table category_rule"]), 10)
        self.assertGreater(len(a["table bulk_index"]), 5)
        self.assertGreater(len(a["sqlite_schema"]), 100)
        self.assertEqual(a["integrity_check"], [("ok",)])
        # the version is the number of the last schema file (the
        # baseline's: 95)
        self.assertEqual(a["pragma user_version"], common.schema_version())
        self.assertEqual(a["pragma application_id"], 0x50464442)

if __name__ == "__main__":
    unittest.main()


class RuntimeCallCorr(common.ProfanTest):
    """schema 031 (a section of the baseline): the index the database
    linkage made from C (runtime_call_corr) is made by nothing any more,
    neither the schema nor an ingest."""

    def test_no_index(self):
        self.ingest_ok(common.shared("traces", "hta-triton.json.gz"))
        names = [r[0] for r in sqlite3.connect(self.db).execute(
            "SELECT name FROM sqlite_schema WHERE type = 'index'")]
        self.assertNotIn("runtime_call_corr", names)
        # the listing is real: the ingest's own bulk index is in it
        self.assertIn("kernel_run", names)
