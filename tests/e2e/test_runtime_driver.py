"""test_runtime_driver.py — runtime_call.driver (schema 126, issue 35): 1
for a driver API call (cat cuda_driver / hip_driver), 0 for a runtime one,
in place of the text column kind ('runtime' / 'driver').

The oracle is the trace itself, read here with Python: each call's
category, counted by name.  Checked:
  - an ingest stores driver = 1 exactly on the input's driver calls
    (tracelens-b200-vllm-rank0: 221 of 1,372 calls; hta-triton: 1 of 2);
  - export-trace writes those calls back with cat cuda_driver, the others
    with cuda_runtime;
  - a database of the schema before the file that made the column (its
    runtime_call rows with the text kind, as that schema stored them) is
    migrated by the next writing command: the rows converted, every other
    column as it was, and the queries and the export of the stored run
    answer as on a database made at the new schema.
"""
import glob
import json
import os
import sqlite3
import subprocess

import common
from common import ProfanTest, events, run, shared

DRIVER_CATS = ("cuda_driver", "hip_driver")
RUNTIME_CATS = ("cuda_runtime", "runtime", "hip_runtime") + DRIVER_CATS
VLLM = shared("traces", "tracelens-b200-vllm-rank0.json.gz")
TRITON = shared("traces", "hta-triton.json.gz")


def input_calls(path):
    """{(name, driver): count} of the runtime and driver calls of a trace
    (complete events of a runtime category)."""
    got = {}
    for e in events(path):
        cat = e.get("cat")
        if isinstance(cat, str) and cat.lower() in RUNTIME_CATS \
                and e.get("ph") == "X":
            key = (e.get("name", ""), int(cat.lower() in DRIVER_CATS))
            got[key] = got.get(key, 0) + 1
    return got


def stored_calls(db, run_id=None):
    con = sqlite3.connect(db)
    rows = con.execute(
        "SELECT s.text, c.driver, count(*) FROM runtime_call c"
        " JOIN string s ON s.id = c.name_id"
        " WHERE ?1 IS NULL OR c.run_id = ?1 GROUP BY 1, 2",
        (run_id,)).fetchall()
    con.close()
    return {(n, d): k for n, d, k in rows}


def schema_file_of_driver():
    """The schema file that turns runtime_call.kind into driver."""
    files = glob.glob(os.path.join(common.ROOT, "schema",
                                   "[0-9][0-9][0-9]-runtime-call-driver.sql"))
    assert len(files) == 1, files
    return files[0]


class RuntimeDriverTest(ProfanTest):

    def test_ingest_marks_the_driver_calls(self):
        for path, n_driver in ((VLLM, 221), (TRITON, 1)):
            with self.subTest(path=os.path.basename(path)):
                if os.path.exists(self.db):
                    os.unlink(self.db)
                self.ingest_ok(path)
                want = input_calls(path)
                self.assertEqual(sum(k for (_, d), k in want.items() if d),
                                 n_driver)
                self.assertEqual(stored_calls(self.db), want)

    def test_export_writes_the_driver_category(self):
        self.ingest_ok(VLLM)
        out = os.path.join(self.tmp.name, "out.json")
        r = self.profan("export-trace", "1", "--window", "0:1000s", "-o", out)
        self.assertEqual(r.rc, 0, r.err)
        with open(out) as f:
            doc = json.load(f)
        got = {}
        for e in doc["traceEvents"]:
            if e.get("cat") in ("cuda_runtime", "cuda_driver"):
                key = (e["name"], int(e["cat"] == "cuda_driver"))
                got[key] = got.get(key, 0) + 1
        self.assertEqual(got, input_calls(VLLM))

    def old_database(self, new_db, old_db):
        """old_db: the schema files before the driver column applied to an
        empty database, and new_db's rows copied into every table the
        schema left empty, runtime_call's driver written back as the text
        kind that schema stored."""
        cut = int(os.path.basename(schema_file_of_driver())[:3])
        files = sorted(glob.glob(os.path.join(common.ROOT, "schema",
                                              "[0-9][0-9][0-9]-*.sql")))
        files = [p for p in files if int(os.path.basename(p)[:3]) < cut]
        last = max([common.SCHEMA_BASELINE] +
                   [int(os.path.basename(p)[:3]) for p in files[1:]])
        con = sqlite3.connect(old_db)
        for p in files:
            with open(p) as f:
                con.executescript(f.read())
        con.execute("PRAGMA user_version=%d" % last)
        con.execute("PRAGMA application_id=%d" % 0x50464442)
        con.execute("ATTACH ? AS n", (new_db,))
        cols = [c[1] for c in con.execute("PRAGMA main.table_info(runtime_call)")]
        self.assertIn("kind", cols)
        self.assertNotIn("driver", cols)
        tabs = [t for (t,) in con.execute(
            "SELECT name FROM main.sqlite_schema WHERE type = 'table'"
            " AND name NOT LIKE 'sqlite_%'")]
        for t in tabs:
            if con.execute('SELECT count(*) FROM main."%s"' % t).fetchone()[0]:
                continue
            cols = [c[1] for c in con.execute(
                'PRAGMA main.table_info("%s")' % t)]
            sel = ["CASE driver WHEN 1 THEN 'driver' ELSE 'runtime' END"
                   if (t, c) == ("runtime_call", "kind") else '"%s"' % c
                   for c in cols]
            con.execute('INSERT INTO main."%s"(%s) SELECT %s FROM n."%s"'
                        % (t, ", ".join('"%s"' % c for c in cols),
                           ", ".join(sel), t))
        con.commit()
        con.execute("DETACH n")
        kinds = dict(con.execute(
            "SELECT kind, count(*) FROM runtime_call GROUP BY 1"))
        con.close()
        return kinds

    def test_previous_schema_is_migrated(self):
        self.ingest_ok(VLLM)                     # at the new schema
        old = os.path.join(self.tmp.name, "old.db")
        kinds = self.old_database(self.db, old)
        self.assertEqual(kinds, {"runtime": 1151, "driver": 221})
        ver = subprocess.run(["sqlite3", old, "PRAGMA user_version"],
                             capture_output=True, text=True).stdout.strip()
        self.assertLess(int(ver), common.schema_version())
        # the next writing command migrates it
        r = run("ingest", TRITON, db=old)
        self.assertEqual(r.rc, 0, r.err)
        ver = subprocess.run(["sqlite3", old, "PRAGMA user_version"],
                             capture_output=True, text=True).stdout.strip()
        self.assertEqual(int(ver), common.schema_version())
        self.assertEqual(stored_calls(old, 1), input_calls(VLLM))
        self.assertEqual(stored_calls(old, 2), input_calls(TRITON))
        # run 1's rows: every column as the new schema stored it
        con = sqlite3.connect(old)
        con.execute("ATTACH ? AS n", (self.db,))
        cols = [c[1] for c in con.execute("PRAGMA n.table_info(runtime_call)")]
        self.assertEqual(
            sorted(cols),
            sorted(c[1] for c in con.execute(
                "PRAGMA main.table_info(runtime_call)")))
        sel = ", ".join(cols)
        diff = con.execute(
            "SELECT count(*) FROM (SELECT %s FROM main.runtime_call"
            " WHERE run_id = 1 EXCEPT SELECT %s FROM n.runtime_call)"
            % (sel, sel)).fetchone()[0]
        n = con.execute("SELECT count(*) FROM main.runtime_call"
                        " WHERE run_id = 1").fetchone()[0]
        con.close()
        self.assertEqual((diff, n), (0, 1372))
        # the same answers as the database made at the new schema
        for args in (("query", "launch-overhead", "--run", "1"),
                     ("query", "top-kernels", "--run", "1"),
                     ("query", "step-breakdown", "--run", "1"),
                     ("report", "1", "--section", "summary"),
                     ("report", "1", "--section", "findings")):
            a = run("--format", "csv", *args, db=self.db)
            b = run("--format", "csv", *args, db=old)
            self.assertEqual(a.rc, 0, a.err)
            self.assertTrue(a.out.strip(), args)
            self.assertEqual((b.rc, b.out), (0, a.out), args)
        outs = []
        for db in (self.db, old):
            out = os.path.join(self.tmp.name, "e%d.json" % len(outs))
            r = run("export-trace", "1", "--window", "0:1000s", "-o", out,
                    db=db)
            self.assertEqual(r.rc, 0, r.err)
            with open(out) as f:
                outs.append(f.read())
        self.assertEqual(outs[0], outs[1])


if __name__ == "__main__":
    import unittest
    unittest.main()
