"""test_schema_current.py — schema/current.sql is what the migrations make.

scripts/schema_current.py has the built profan create a database and
compares its schema (read back with Python's sqlite3) with the committed
schema/current.sql; a migration added without regenerating the file, or a
hand edit of it, fails here.
"""
import os
import subprocess
import sys
import unittest

import common


class SchemaCurrent(unittest.TestCase):
    def test_current_sql_matches_the_migrations(self):
        script = os.path.join(common.ROOT, "scripts", "schema_current.py")
        r = subprocess.run([sys.executable, script, common.PROFAN, "--check"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(r.stdout.strip(), "schema/current.sql is current")

    def test_run_metric_is_noted_as_redefined(self):
        text = open(os.path.join(common.ROOT, "schema", "current.sql")).read()
        self.assertIn("-- view run_metric: created in 008, 009, 020, 022,"
                      " 026; this is 026's definition\nCREATE VIEW"
                      " run_metric", text)
        self.assertEqual(text.count("CREATE VIEW run_metric AS"), 1)


if __name__ == "__main__":
    unittest.main()
