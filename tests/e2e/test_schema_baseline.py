"""test_schema_baseline.py — schema/001-baseline.sql makes exactly what
the 27 development migrations it replaced made.

The old files (schema/001-core.sql ... 030-annotation-sweep.sql) are read
from git history: the tree of the commit before the one that removed
them (or HEAD while they are still there).  Both are applied with
Python's sqlite3 to empty databases, and compared:
  - every sqlite_schema object (type, name, table) with its SQL as a
    token list (comments and white space dropped, everything else as
    written, so a changed name, type, constraint, default or view body
    fails);
  - every row of every table, in rowid order (the seed rows: category
    rules, thresholds, parameters, GPU specs, bulk-index DDL, ...).
The baseline adds the table catalogue (table_role and the view
table_string_column) and nothing else.
Without git history (an exported tree) the test says so and skips.
"""
import os
import re
import sqlite3
import subprocess
import unittest

import common

OLD_LAST = "schema/030-annotation-sweep.sql"
# what the baseline adds to what the migrations made
ADDED = {"table_role", "table_string_column"}

TOKEN = re.compile(r"[A-Za-z_0-9.$]+|\|\||<=|>=|<>|!=|==|<<|>>|.", re.S)


def tokens(sql):
    """The tokens of sql: comments and white space dropped; strings and
    quoted names whole."""
    out, i, n = [], 0, len(sql)
    while i < n:
        c = sql[i]
        if sql.startswith("--", i):
            j = sql.find("\n", i)
            i = n if j < 0 else j + 1
        elif sql.startswith("/*", i):
            i = sql.index("*/", i) + 2
        elif c.isspace():
            i += 1
        elif c in "'\"`[":
            close = "]" if c == "[" else c
            j = i + 1
            while True:
                j = sql.index(close, j)
                if close != "]" and sql.startswith(close, j + 1):
                    j += 2
                    continue
                break
            out.append(sql[i:j + 1])
            i = j + 1
        else:
            m = TOKEN.match(sql, i)
            out.append(m.group(0))
            i = m.end()
    return out


def git(*args):
    r = subprocess.run(["git", "-C", common.ROOT] + list(args),
                       capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


def old_files():
    """[(name, text)] of the migrations as they were before the baseline,
    or None without git history."""
    rev = "HEAD" if git("cat-file", "-e", "HEAD:" + OLD_LAST) is not None \
        else None
    if rev is None:
        log = git("log", "--diff-filter=D", "--format=%H", "-n", "1", "--",
                  OLD_LAST)
        if not log or not log.strip():
            return None
        rev = log.split()[0] + "^"
    names = git("ls-tree", "--name-only", rev, "schema/")
    files = sorted(p for p in names.split()
                   if re.match(r"schema/\d{3}-[\w-]+\.sql$", p))
    return [(p, git("show", "%s:%s" % (rev, p))) for p in files]


def build(texts):
    con = sqlite3.connect(":memory:")
    for t in texts:
        con.executescript(t)
    return con


def snapshot(con):
    """({object name: (type, table, tokens)}, {table: rows in rowid
    order})."""
    objs = {name: (typ, tbl, tokens(sql) if sql else None)
            for typ, name, tbl, sql in con.execute(
                "SELECT type, name, tbl_name, sql FROM sqlite_schema")}
    rows = {}
    for (t,) in con.execute("SELECT name FROM sqlite_schema"
                            " WHERE type = 'table'"):
        wr = con.execute("SELECT wr FROM pragma_table_list WHERE name = ?",
                         (t,)).fetchone()[0]
        rows[t] = con.execute('SELECT * FROM "%s"%s'
                              % (t, "" if wr else " ORDER BY rowid")).fetchall()
    return objs, rows


class SchemaBaseline(unittest.TestCase):

    def test_baseline_makes_what_the_migrations_made(self):
        old = old_files()
        if old is None:
            self.skipTest("no git history with the migrations before the"
                          " baseline")
        self.assertEqual(len(old), 27, [p for p, _ in old])
        with open(os.path.join(common.ROOT, "schema", "001-baseline.sql"),
                  encoding="utf-8") as f:
            base = f.read()
        old_objs, old_rows = snapshot(build(t for _, t in old))
        new_objs, new_rows = snapshot(build([base]))
        self.assertGreater(len(old_objs), 150)
        added = {k for k in new_objs if k not in old_objs}
        self.assertEqual({new_objs[k][1] for k in added}, ADDED)
        self.assertEqual([k for k in old_objs if k not in new_objs], [])
        for k, v in old_objs.items():
            self.assertEqual(new_objs[k], v, k)
        for t, rows in old_rows.items():
            self.assertEqual(new_rows[t], rows, t)
        # the seed rows are there at all
        self.assertGreater(len(old_rows["category_rule"]), 40)
        self.assertGreater(len(old_rows["gpu_spec"]), 10)
        self.assertGreater(len(old_rows["bulk_index"]), 10)

    def test_tokens(self):
        self.assertEqual(tokens("CREATE TABLE t( -- c\n a INT,  /* x */ b"
                                " TEXT DEFAULT 'it''s -- no')"),
                         ["CREATE", "TABLE", "t", "(", "a", "INT", ",", "b",
                          "TEXT", "DEFAULT", "'it''s -- no'", ")"])


if __name__ == "__main__":
    unittest.main()
