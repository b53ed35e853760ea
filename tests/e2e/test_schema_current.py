"""test_schema_current.py — schema/current.sql is what the migrations make.

scripts/schema_current.py has the built profan create a database and
compares its schema (read back with Python's sqlite3) with the committed
schema/current.sql; a migration added without regenerating the file, or a
hand edit of it, fails here.

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
import glob
import os
import re
import subprocess
import sys
import unittest

import sqlite3

import common


class SchemaCurrent(unittest.TestCase):
    def test_current_sql_matches_the_migrations(self):
        script = os.path.join(common.ROOT, "scripts", "schema_current.py")
        r = subprocess.run([sys.executable, script, common.PROFAN, "--check"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(r.stdout.strip(), "schema/current.sql is current")

    def test_run_metric_is_noted_as_redefined(self):
        # the migrations that create run_metric, read here from the files
        nums = []
        for path in sorted(glob.glob(os.path.join(
                common.ROOT, "schema", "[0-9][0-9][0-9]-*.sql"))):
            text = re.sub(r"--[^\n]*", "", open(path).read())
            if re.search(r"CREATE\s+VIEW\s+run_metric\s", text):
                nums.append(os.path.basename(path)[:3])
        self.assertGreaterEqual(len(nums), 3)      # 008, 009, 020, ...
        text = open(os.path.join(common.ROOT, "schema", "current.sql")).read()
        self.assertIn("-- view run_metric: created in %s; this is %s's"
                      " definition\nCREATE VIEW run_metric"
                      % (", ".join(nums), nums[-1]), text)
        self.assertEqual(text.count("CREATE VIEW run_metric AS"), 1)

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
        self.assertEqual(a["pragma user_version"], len(glob.glob(
            os.path.join(common.ROOT, "schema", "[0-9][0-9][0-9]-*.sql"))))

if __name__ == "__main__":
    unittest.main()


class RuntimeCallCorr(common.ProfanTest):
    """schema/031: the index the database linkage made from C
    (runtime_call_corr) is dropped where a database has it; nothing makes
    it any more."""

    def test_dropped_on_migration(self):
        self.ingest_ok(common.shared("traces", "hta-triton.json.gz"))
        names = lambda: [r[0] for r in sqlite3.connect(self.db).execute(
            "SELECT name FROM sqlite_schema WHERE type = 'index'"
            " AND tbl_name = 'runtime_call'")]
        self.assertNotIn("runtime_call_corr", names())
        n = len(glob.glob(os.path.join(common.ROOT, "schema",
                                       "[0-9][0-9][0-9]-*.sql")))
        con = sqlite3.connect(self.db)
        con.execute("CREATE INDEX runtime_call_corr"
                    " ON runtime_call(file_id, correlation)")
        con.execute("PRAGMA user_version = %d" % (n - 1))
        con.commit()
        con.close()
        r = self.profan("tag", "1", "migrated=yes")
        self.assertEqual(r.rc, 0, r.err)
        self.assertNotIn("runtime_call_corr", names())
        self.assertEqual(sqlite3.connect(self.db).execute(
            "PRAGMA user_version").fetchone()[0], n)
