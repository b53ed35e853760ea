"""test_schema_baseline.py — schema/001-baseline.sql makes exactly what
the development schema files it replaced made, and databases of those
development builds are refused.

The baseline replaced 001-030 (27 files, at 923811a) and then 031-095
(20 files).  The test compares it with the step before: the baseline as
it was before the second fold and the files 031-095, both read from git
history (the tree of the commit before the one that removed
schema/095-memory-series.sql, or HEAD while it is still there).  The
first fold was checked the same way against 001-030 when it was made
(test_schema_baseline.py at 272d7b5).  Both are applied with Python's
sqlite3 to empty databases, and compared:
  - every sqlite_schema object (type, name, table) with its SQL as a
    token list (comments and white space dropped, a double-quoted plain
    name as the name, everything else as written, so a changed name,
    type, column, constraint, default or view body fails);
  - the order of creation (sqlite_schema's rowid order, which
    schema/current.sql shows);
  - every row of every table, in rowid order (the seed rows: category
    rules, thresholds, parameters, GPU specs, bulk-index DDL, the table
    catalogue table_role, ...).
Without git history (an exported tree) that test says so and skips.

Versions: a new database gets user_version 95 (the highest folded
number, common.SCHEMA_BASELINE) or the number of a file after it; a
"PFDB" database of a development build at 1-94 is refused with one line
and exit 7 (a merge shard: exit 6), and left as it was.
"""
import gzip
import os
import re
import sqlite3
import subprocess
import unittest

import common

FOLDED_LAST = "schema/095-memory-series.sql"
PFDB = 0x50464442

TOKEN = re.compile(r"[A-Za-z_0-9.$]+|\|\||<=|>=|<>|!=|==|<<|>>|.", re.S)
PLAIN = re.compile(r'"[A-Za-z_][A-Za-z_0-9]*"$')


def tokens(sql):
    """The tokens of sql: comments and white space dropped; strings and
    quoted names whole, a double-quoted plain name without its quotes
    (ALTER TABLE RENAME writes the new name quoted)."""
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
            tok = sql[i:j + 1]
            out.append(tok[1:-1] if PLAIN.match(tok) else tok)
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


def folded_rev():
    """The revision whose schema/ holds the files the second fold
    replaced, or None without git history."""
    if git("cat-file", "-e", "HEAD:" + FOLDED_LAST) is not None:
        return "HEAD"
    log = git("log", "--diff-filter=D", "--format=%H", "-n", "1", "--",
              FOLDED_LAST)
    if not log or not log.strip():
        return None
    return log.split()[0] + "^"


def old_files(rev):
    """[(name, text)] of schema/NNN-*.sql at rev, in number order."""
    names = git("ls-tree", "--name-only", rev, "schema/")
    files = sorted(p for p in names.split()
                   if re.match(r"schema/\d{3}-[\w-]+\.sql$", p))
    return [(p, git("show", "%s:%s" % (rev, p))) for p in files]


def build(texts, path=":memory:"):
    con = sqlite3.connect(path)
    for t in texts:
        con.executescript(t)
    return con


def snapshot(con):
    """({object name: (type, table, tokens)}, [names in creation order],
    {table: rows in rowid order})."""
    objs, order = {}, []
    for typ, name, tbl, sql in con.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_schema"
            " ORDER BY rowid"):
        objs[name] = (typ, tbl, tokens(sql) if sql else None)
        order.append(name)
    rows = {}
    for (t,) in con.execute("SELECT name FROM sqlite_schema"
                            " WHERE type = 'table'"):
        wr = con.execute("SELECT wr FROM pragma_table_list WHERE name = ?",
                         (t,)).fetchone()[0]
        rows[t] = con.execute('SELECT * FROM "%s"%s'
                              % (t, "" if wr else " ORDER BY rowid")).fetchall()
    return objs, order, rows


def baseline_text():
    with open(os.path.join(common.ROOT, "schema", "001-baseline.sql"),
              encoding="utf-8") as f:
        return f.read()


class SchemaBaseline(unittest.TestCase):

    def test_baseline_makes_what_the_files_it_folded_made(self):
        rev = folded_rev()
        if rev is None:
            self.skipTest("no git history with the files before the"
                          " baseline")
        old = old_files(rev)
        names = [os.path.basename(p) for p, _ in old]
        self.assertEqual(names[0], "001-baseline.sql")
        self.assertEqual(len(old), 21, names)
        self.assertEqual(names[-1], os.path.basename(FOLDED_LAST))
        # the baseline's version is the highest number it folded
        self.assertEqual(int(names[-1][:3]), common.SCHEMA_BASELINE)
        old_objs, old_order, old_rows = snapshot(build(t for _, t in old))
        new_objs, new_order, new_rows = snapshot(build([baseline_text()]))
        self.assertGreater(len(old_objs), 200)
        self.assertEqual(sorted(k for k in new_objs if k not in old_objs), [])
        self.assertEqual(sorted(k for k in old_objs if k not in new_objs), [])
        for k, v in old_objs.items():
            self.assertEqual(new_objs[k], v, k)
        self.assertEqual(new_order, old_order)
        self.assertEqual(sorted(new_rows), sorted(old_rows))
        for t, rows in old_rows.items():
            self.assertEqual(new_rows[t], rows, t)
        # the seed rows are there at all
        self.assertGreater(len(old_rows["category_rule"]), 40)
        self.assertGreater(len(old_rows["gpu_spec"]), 10)
        self.assertGreater(len(old_rows["bulk_index"]), 10)
        self.assertGreater(len(old_rows["table_role"]), 60)
        self.assertIn("step_comm", [r[0] for r in old_rows["table_role"]])

    def test_each_folded_file_has_its_section(self):
        # a comment citing "schema 0NN" finds its section
        text = baseline_text()
        rev = folded_rev()
        names = ([os.path.basename(p) for p, _ in old_files(rev)][1:]
                 if rev else [])
        for n in names:
            self.assertIn("\n-- was %s — " % n, text)
        self.assertIn("\n-- was 013-hta-analyses.sql — ", text)

    def test_new_database_version(self):
        r = common.run("--version")
        self.assertEqual(r.rc, 0, r.err)
        self.assertTrue(r.out.endswith("(schema %d)\n"
                                       % common.schema_version()), r.out)
        self.assertGreaterEqual(common.schema_version(), 95)

    def test_tokens(self):
        self.assertEqual(tokens("CREATE TABLE t( -- c\n a INT,  /* x */ b"
                                " TEXT DEFAULT 'it''s -- no')"),
                         ["CREATE", "TABLE", "t", "(", "a", "INT", ",", "b",
                          "TEXT", "DEFAULT", "'it''s -- no'", ")"])
        self.assertEqual(tokens('CREATE TABLE "t"("a b" INT)'),
                         ["CREATE", "TABLE", "t", "(", '"a b"', "INT", ")"])


class DevelopmentDatabase(common.ProfanTest):
    """A database of a development build between the two baselines
    ("PFDB", user_version 1-94: the number of the last development file
    it had) cannot be migrated: the files it would need are folded into
    the baseline.  Reading and writing commands refuse it with one line,
    exit 7, and leave it as it was; so does merge for a shard (exit 6,
    its input's code)."""

    def make(self, path, version):
        """A database as a development build at version made it: the
        baseline of 272d7b5 and the files up to version, from git history
        (without it: the baseline of today), that version and "PFDB"."""
        rev = folded_rev()
        texts = ([t for p, t in old_files(rev)
                  if int(os.path.basename(p)[:3]) <= version]
                 if rev else [baseline_text()])
        con = build(texts, path)
        con.execute("PRAGMA user_version = %d" % version)
        con.execute("PRAGMA application_id = %d" % PFDB)
        con.commit()
        con.close()

    def line(self, path, version):
        return ("profan: %s: database made by a development build of"
                " profan (schema version %d, before the baseline 95); this"
                " profan cannot migrate it: ingest the runs' files again"
                " into a new database\n" % (path, version))

    def test_refused_and_untouched(self):
        trace = common.shared("traces", "hta-triton.json.gz")
        for version in (1, 31, 67, 94):
            if os.path.exists(self.db):
                os.remove(self.db)
            self.make(self.db, version)
            with open(self.db, "rb") as f:
                before = f.read()
            for cmd in (("runs",), ("sql", "SELECT 1"), ("ingest", trace),
                        ("rebuild",), ("rm", "x")):
                r = self.profan(*cmd)
                self.assertEqual((r.rc, r.err), (7, self.line(self.db,
                                                             version)), cmd)
            with open(self.db, "rb") as f:
                self.assertEqual(f.read(), before, version)

    def test_merge_shard_refused(self):
        shard = os.path.join(self.tmp.name, "shard.db")
        self.make(shard, 93)
        with open(shard, "rb") as f:
            before = f.read()
        r = self.profan("merge", "--into", self.db, shard)
        self.assertEqual((r.rc, r.err), (6, self.line(shard, 93)))
        self.assertFalse(os.path.exists(self.db))
        with open(shard, "rb") as f:
            self.assertEqual(f.read(), before)

    def test_baseline_version_is_not_refused(self):
        # the first version of the baseline's numbering opens (and is
        # migrated to the files after it, when there are any)
        self.make(self.db, 95)
        self.ingest_ok(common.shared("traces", "hta-triton.json.gz"))
        con = sqlite3.connect(self.db)
        self.assertEqual(con.execute("PRAGMA user_version").fetchone()[0],
                         common.schema_version())
        con.close()


if __name__ == "__main__":
    unittest.main()
