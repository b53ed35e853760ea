"""test_db_open.py — a database profan cannot open says why, in one line,
with exit 7 (the database error of the exit-code contract), for every
command that opens it (db.c's db_open), not SQLite's "unable to open
database file" or "attempt to write a readonly database".

Cases: the directory of --db is missing or is a file (any user); the
directory is not writable (the readers work, reading the file as
immutable with a note; the writers are refused), the file is not writable
(readers work) or not readable (profan run as a user permissions bind:
nobody through setpriv under root, common.run_unprivileged).  Each
refusal leaves the database byte for byte as it was.  And a database
error in the middle of an ingest's trace fix-up (DbErrorInFixup).
"""
import os
import sqlite3
import stat

import common
from common import ProfanTest, shared

WAL_NOTE = "; profan keeps the journal (-wal, -shm) beside the database"


def commands(trace, out):
    """Every command that opens the database, with arguments it accepts
    (trace: one that is not in the database yet)."""
    return [["ingest", "--quiet", trace],
            ["query", "run-metrics", "--run", "1"],
            ["runs"],
            ["show", "1"],
            ["sql", "SELECT 1"],
            ["rm", "1"],
            ["tag", "1", "a=b"],
            ["baseline", "list"],
            ["baseline", "set", "main", "1"],
            ["diff", "1", "1"],
            ["trend", "step_time_median_ms"],
            ["check", "--baseline", "1"],
            ["report", "1"],
            ["export-trace", "1", "-o", out]]


class DbOpen(ProfanTest):

    def setUp(self):
        super().setUp()
        self.trace = shared("traces", "hta-compare-base.json.gz")
        self.out = os.path.join(self.tmp.name, "out.json")

    def expect_all(self, db, want, run=common.run, create_want=None):
        """Every command on db: exit 7 and exactly the line want (ingest:
        create_want when given, for a database that does not exist)."""
        for args in commands(self.trace, self.out):
            r = run(*args, db=db)
            w = create_want if (create_want and args[0] == "ingest") \
                else want
            self.assertEqual((r.rc, r.err), (7, "profan: %s: %s\n" % (db, w)),
                             args)
            self.assertEqual(r.out, "", args)

    def test_missing_directory(self):
        missing = os.path.join(self.tmp.name, "missing")
        db = os.path.join(missing, "x.db")
        self.expect_all(db, "no database here: no directory %s" % missing,
                        create_want="cannot create database: no directory %s"
                        % missing)
        self.assertFalse(os.path.exists(missing))

    def test_directory_is_a_file(self):
        f = os.path.join(self.tmp.name, "plain")
        open(f, "w").close()
        db = os.path.join(f, "x.db")
        self.expect_all(db, "no database here: %s is not a directory" % f,
                        create_want="cannot create database: %s is not a"
                        " directory" % f)

    def test_no_database_still_says_run_ingest(self):
        r = self.profan("runs")
        self.assertEqual((r.rc, r.err), (7, "profan: %s: no database here"
                                         " (run 'profan ingest' first, or"
                                         " use --db)\n" % self.db))


class DbOpenAsNobody(ProfanTest):
    """An existing database that user nobody cannot use."""

    def setUp(self):
        super().setUp()
        self.trace = shared("traces", "hta-compare-test.json.gz")
        os.chmod(self.tmp.name, 0o777)
        self.dir = os.path.join(self.tmp.name, "d")
        os.mkdir(self.dir)
        self.db = os.path.join(self.dir, "x.db")
        r = self.profan("ingest", "--quiet",
                        shared("traces", "hta-compare-base.json.gz"))
        self.assertEqual(r.rc, 0, r.err)
        for ext in ("-wal", "-shm"):
            self.assertFalse(os.path.exists(self.db + ext))
        with open(self.db, "rb") as f:
            self.before = f.read()
        self.out = os.path.join(self.tmp.name, "out.json")

    def tearDown(self):
        os.chmod(self.dir, 0o755)
        super().tearDown()

    def as_nobody(self, *args, db):
        return common.run_unprivileged(*args, db=db)

    def expect_all(self, want, only=None, note=""):
        """Every command (or those named in only) refused with the line
        want; the others (readers) succeed, saying note first."""
        for args in commands(self.trace, self.out):
            r = self.as_nobody(*args, db=self.db)
            if only is None or " ".join(args[:2]) in only \
                    or args[0] in only:
                self.assertEqual((r.rc, r.err),
                                 (7, "profan: %s: %s\n" % (self.db, want)),
                                 args)
            else:
                self.assertEqual(r.rc, 0, (args, r.err))
                self.assertTrue(r.err.startswith(note), (args, r.err))
        mode = os.stat(self.db).st_mode & 0o777
        os.chmod(self.db, mode | 0o400)       # the test may be that user
        with open(self.db, "rb") as f:
            self.assertEqual(f.read(), self.before)
        os.chmod(self.db, mode)

    def test_unwritable_directory(self):
        os.chmod(self.db, 0o666)
        os.chmod(self.dir, 0o555)
        # readers: the file read as immutable, with a note (issue 33);
        # writers: refused, SQLite cannot keep its journal there
        self.expect_all("cannot open database: directory %s is not writable"
                        " (Permission denied)%s" % (self.dir, WAL_NOTE),
                        only=("ingest", "rm", "tag", "baseline set"),
                        note="profan: note: directory %s is not writable"
                        " (Permission denied): the database is read as an"
                        " immutable file (no journal beside it; a change"
                        " made meanwhile is not seen)\n" % self.dir)
        # a new database there: ingest's own message
        new = os.path.join(self.dir, "new.db")
        r = self.as_nobody("ingest", "--quiet", self.trace, db=new)
        self.assertEqual(r.err, "profan: %s: cannot create database:"
                         " directory %s is not writable (Permission"
                         " denied)\n" % (new, self.dir))
        self.assertFalse(os.path.exists(new))

    def test_unwritable_file(self):
        os.chmod(self.dir, 0o777)
        os.chmod(self.db, 0o444)
        # SQLite would open it read-only without a word and the writing
        # commands fail at their first write; readers work
        self.expect_all("cannot open database: the file is not writable"
                        " (Permission denied)",
                        only=("ingest", "rm", "tag", "baseline set"))

    def test_unreadable_file(self):
        os.chmod(self.dir, 0o777)
        os.chmod(self.db, 0)
        self.expect_all("cannot open database: the file is not readable"
                        " (Permission denied)")
        self.assertEqual(stat.S_IMODE(os.stat(self.db).st_mode), 0)


class DbErrorInFixup(ProfanTest):
    """A database error while an ingest fixes up a trace whose rank (or
    base time) came after its events (load_trace_fixup called from
    finish_trace_file): one line, exit 7, nothing stored.  The error is
    made by a trigger the test adds to the database (SQLite gives no
    other deterministic way to fail that UPDATE)."""

    def test_fixup_failure_rolls_back(self):
        regimes = os.path.join(common.ROOT, "fixtures", "regimes")
        self.ingest_ok(os.path.join(regimes, "regime-relative_us.json"))
        con = sqlite3.connect(self.db)
        con.execute("CREATE TRIGGER fixup_veto BEFORE UPDATE OF rank ON"
                    " kernel BEGIN SELECT RAISE(ABORT, 'vetoed by the"
                    " test'); END")
        con.commit()
        counts = {t: con.execute("SELECT count(*) FROM %s" % t).fetchone()[0]
                  for t in ("run", "run_file", "kernel", "cpu_op", "device")}
        con.close()
        late = os.path.join(regimes, "regime-late_rank.json")
        r = self.profan("ingest", "--quiet", late)
        # a database error (exit 7), named with the file being fixed up
        self.assertEqual((r.rc, r.err),
                         (7, "profan: %s: vetoed by the test\n" % late))
        con = sqlite3.connect(self.db)
        after = {t: con.execute("SELECT count(*) FROM %s" % t).fetchone()[0]
                 for t in counts}
        con.close()
        self.assertEqual(after, counts)
