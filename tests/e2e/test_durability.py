"""test_durability.py — an ingest killed at any point loses nothing.

The tests synchronise on what can be observed, never on sleeps (issue
#23): the ingest's write transaction is seen from outside as the write
lock it holds (a BEGIN IMMEDIATE of our own fails at once), its progress as
the bytes it has read (/proc/PID/io rchar); a kill is known to have landed
mid-transaction because the lock was held when it was sent and no run was
committed.

The focus of this file is the "one transaction per ingest" contract under
kill -9 (SIGKILL at a spread of moments, and at 50 seeded random moments,
during a real trace's ingest) and under two writers at once: the database
passes PRAGMA integrity_check, keeps every run that had completed, and
never holds a half run.  Also: a full disk or file-size limit, a read-only
database file and a missing directory give one clear error and lose
nothing; a database made by a development build before the schema
baseline (committed) is refused with one line and left as it was.
"""
import glob
import gzip
import json
import os
import pickle
import random
import resource
import shutil
import signal
import sqlite3 as pysqlite
import subprocess
import time

import common
from common import ProfanTest, local, shared


def writer_holds_lock(db):
    """True while another connection holds db's write lock (its BEGIN
    IMMEDIATE ... COMMIT): our own BEGIN IMMEDIATE fails at once."""
    c = pysqlite.connect(db, timeout=0, isolation_level=None)
    try:
        c.execute("BEGIN IMMEDIATE")
    except pysqlite.OperationalError as e:
        if "locked" in str(e) or "busy" in str(e):
            return True
        raise
    else:
        c.execute("ROLLBACK")
        return False
    finally:
        c.close()


def run_visible(db, name):
    """True once run `name` is committed (a reader sees it)."""
    c = pysqlite.connect(db, timeout=10)
    try:
        return c.execute("SELECT count(*) FROM run WHERE name = ?",
                         (name,)).fetchone()[0] > 0
    finally:
        c.close()


def in_transaction(db, name):
    """The ingest of run `name` is inside its write transaction: it holds
    the write lock and has not committed the run (after the commit it may
    hold the lock a little longer, to checkpoint the WAL)."""
    return writer_holds_lock(db) and not run_visible(db, name)


def bytes_read(pid):
    """rchar of /proc/PID/io (bytes the process has read so far), or None
    once it is gone."""
    try:
        with open("/proc/%d/io" % pid) as f:
            for line in f:
                if line.startswith("rchar:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def wait_until(cond, what, limit=120):
    """Poll cond() until it is true; a stuck state fails after `limit`
    seconds (a safety net, not a timing assertion)."""
    deadline = time.monotonic() + limit
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError("never happened: " + what)
        time.sleep(0.001)


def measure_ingest(test, path):
    """Ingest path as run 'probe' (then remove it); the bytes it had read
    when last seen inside its transaction."""
    p = subprocess.Popen([common.PROFAN, "--db", test.db, "ingest", "--quiet",
                          "--name", "probe", path],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    last = 0
    while p.poll() is None:
        n = bytes_read(p.pid)
        if n is not None and in_transaction(test.db, "probe"):
            last = max(last, n)
        time.sleep(0.001)
    test.assertEqual(p.returncode, 0, p.stderr.read())
    p.stderr.close()
    test.assertEqual(test.profan("rm", "probe").rc, 0)
    test.assertGreater(last, 0)
    return last


def kill_at(test, name, path, db, at_bytes):
    """Start an ingest of path as run `name`; once it holds the write lock
    and has read at least at_bytes, SIGKILL it.  Returns (exit status,
    landed): landed says the kill was sent inside the transaction (lock
    held, run not committed)."""
    p = subprocess.Popen([common.PROFAN, "--db", db, "ingest", "--quiet", "--name",
                          name, path],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until(lambda: p.poll() is not None
               or ((bytes_read(p.pid) or 0) >= at_bytes and writer_holds_lock(db)),
               "profan reading %d bytes" % at_bytes)
    landed = False
    if p.poll() is None:
        landed = in_transaction(db, name)
        p.send_signal(signal.SIGKILL)
    return p.wait(), landed


class KillNine(ProfanTest):

    def test_sigkill_during_ingest(self):
        self.ingest_ok(shared("traces", "hta-triton.json.gz"), extra=("--name", "kept"))
        big = shared("traces", "hta-diff-control-a100-rank3.json.gz")
        # one full ingest tells how many bytes it reads inside its
        # transaction; then kill at eight fractions of that progress
        total = measure_ingest(self, big)
        for k in range(8):
            at = total * (k + 0.5) // 8
            what = "kill %d after %d of %d bytes" % (k, at, total)
            rc, landed = kill_at(self, "killed%d" % k, big, self.db, at)
            # the kill landed inside the write transaction
            self.assertEqual(rc, -signal.SIGKILL, what)
            self.assertTrue(landed, what)
            ok = subprocess.run(["sqlite3", self.db, "PRAGMA integrity_check"],
                                capture_output=True, text=True).stdout.strip()
            self.assertEqual(ok, "ok", what)
            # ... and nothing of it was committed
            runs = [r["name"] for r in self.sql("SELECT name FROM run ORDER BY id")]
            self.assertEqual(runs, ["kept"], what)
        self.assertEqual(self.query("top-kernels", run_ref="kept")[0]["count"], "1")


class TwoWriters(ProfanTest):

    def test_concurrent_ingests_both_succeed(self):
        a = shared("traces", "hta-diff-test-v100-rank1.json.gz")
        b = shared("traces", "param-linear-2080ti.json.gz")
        pa = subprocess.Popen([common.PROFAN, "--db", self.db, "ingest", "--quiet", a],
                              stderr=subprocess.PIPE, text=True)
        # the second starts while the first holds the write lock: it waits
        # instead of failing, as long as --timeout says (the default, 10 s,
        # is shorter than the first ingest under ASan on a loaded machine)
        wait_until(lambda: pa.poll() is not None or writer_holds_lock(self.db),
                   "the first ingest's transaction")
        self.assertIsNone(pa.poll(), "the first ingest ended before the second began")
        pb = subprocess.Popen([common.PROFAN, "--db", self.db, "ingest", "--quiet",
                               "--timeout", str(common.TIMEOUT), b],
                              stderr=subprocess.PIPE, text=True)
        ea = pa.communicate()[1]
        eb = pb.communicate()[1]
        self.assertEqual(pa.returncode, 0, ea)
        self.assertEqual(pb.returncode, 0, eb)
        self.assertEqual(self.sql("SELECT count(*) AS n FROM run")[0]["n"], "2")

    def test_reader_during_ingest(self):
        self.ingest_ok(shared("traces", "hta-triton.json.gz"), extra=("--name", "first"))
        big = shared("traces", "hta-diff-control-a100-rank3.json.gz")
        p = subprocess.Popen([common.PROFAN, "--db", self.db, "ingest", "--quiet", big],
                             stderr=subprocess.PIPE, text=True)
        wait_until(lambda: p.poll() is not None or writer_holds_lock(self.db),
                   "the ingest's transaction")
        # a reader is not blocked while the writer holds its transaction:
        # it answers, and the writer still holds the lock afterwards (a
        # reader that waited for the commit would see it released)
        rows = self.query("top-kernels", run_ref="first")
        self.assertEqual(rows[0]["count"], "1")
        self.assertTrue(p.poll() is None and writer_holds_lock(self.db),
                        "the read did not happen during the write transaction")
        p.communicate()
        self.assertEqual(p.returncode, 0)


# ---------------------------------------------------------------- issue #7
# kill -9 at 50 random points, disk full, read-only database, missing
# directory, and a database made by an older profan (committed, see
# tests/e2e/data/make_old_db.sh).

# its runs are ~4x slower under a sanitizer: loops are shortened there
sanitized_build = common.sanitized


def integrity(db):
    return subprocess.run(["sqlite3", db, "PRAGMA integrity_check"],
                          capture_output=True, text=True).stdout.strip()


class KillNineRandom(ProfanTest):
    """SIGKILL at 15 seeded random moments of an ingest (50 with
    PROFAN_LONG=1 on a build without sanitizers):
    after each, integrity_check is ok, the completed runs are all there and
    every run present is complete."""

    def test_sigkill_at_50_random_points(self):
        self.ingest_ok(local("sample-run"), extra=("--name", "kept"))
        big = shared("traces", "hta-diff-control-a100-rank3.json.gz")
        total = measure_ingest(self, big)
        want_kernels = self.sql("SELECT count(*) AS n FROM kernel")[0]["n"]
        rnd = random.Random(2026)
        loops = 50 if common.LONG and not sanitized_build() else 15
        inside = 0
        for k in range(loops):
            # a random point of the reading, or past its end (the ingest
            # may then finish first)
            at = int(rnd.uniform(0, total * 1.1))
            rc, landed = kill_at(self, "k%d" % k, big, self.db, at)
            what = "kill %d after %d of %d bytes (exit %d)" % (k, at, total, rc)
            self.assertEqual(integrity(self.db), "ok", what)
            runs = [x["name"] for x in self.sql("SELECT name FROM run ORDER BY id")]
            self.assertEqual(runs[0], "kept", what)
            if rc == 0:                         # finished before the signal
                self.assertIn("k%d" % k, runs, what)
            elif landed:
                # killed inside the transaction: nothing of it committed
                self.assertEqual(runs, ["kept"], what)
                inside += 1
            # a run that is there is complete (committed as the kill came)
            for name in runs[1:]:
                n = self.sql("SELECT count(*) AS n FROM gpu_op_summary g JOIN run r"
                             " ON r.id = g.run_id WHERE r.name = '%s'" % name)[0]["n"]
                self.assertGreater(int(n), 0, what + " " + name)
                self.assertEqual(self.profan("rm", name).rc, 0)
        # the points below the total (about 10 in 11) all land inside it
        self.assertGreaterEqual(inside, loops * 8 // 11)
        self.assertEqual(self.sql("SELECT count(*) AS n FROM kernel k JOIN run r"
                                  " ON r.id = k.run_id WHERE r.name = 'kept'")[0]["n"],
                         want_kernels)


def trace_with_kernels(n):
    ev = []
    for i in range(n):
        ev.append({"ph": "X", "cat": "kernel", "name": "kernel_%d" % (i % 97),
                   "pid": 0, "tid": 7, "ts": 1000 + 10 * i, "dur": 5,
                   "args": {"correlation": i, "stream": 7, "device": 0}})
    return json.dumps({"traceEvents": ev})


class DiskFull(ProfanTest):
    """A write that cannot be done: a clear one-line error, exit 1, and the
    database still opens, passes integrity_check and holds exactly the runs
    it had."""

    def setUp(self):
        super().setUp()
        self.ingest_ok(local("sample-run"), extra=("--name", "first"))
        self.big = os.path.join(self.tmp.name, "big.json")
        with open(self.big, "w") as f:
            # a new run well over the 64 KiB of headroom test_file_size_limit
            # leaves (its WAL frames alone: ~1.4 MB per 20000 kernels)
            f.write(trace_with_kernels(40000))

    def check_unchanged(self, db):
        self.assertEqual(integrity(db), "ok")
        r = common.run("--format", "csv", "sql", "SELECT name FROM run", db=db)
        self.assertEqual(r.rc, 0, r.err)
        self.assertEqual(r.rows(), [{"name": "first"}])

    def test_file_size_limit(self):
        # RLIMIT_FSIZE a little above the database: profan ignores SIGXFSZ,
        # the write fails with EFBIG, SQLite reports it, the ingest rolls back
        limit = os.path.getsize(self.db) + 64 * 1024

        def lower():
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        p = subprocess.run([common.PROFAN, "--db", self.db, "ingest", "--quiet", self.big],
                           capture_output=True, text=True, preexec_fn=lower)
        self.assertEqual(p.returncode, 7, p.stderr)
        self.assertRegex(p.stderr, r"^profan: database: (cannot commit: )?disk I/O error "
                         r"\(writing the database failed: disk full, quota or file "
                         r"size limit\?\)\n$")
        self.check_unchanged(self.db)
        # nothing is wedged: without the limit the same ingest works
        self.ingest_ok(self.big)

    def test_full_filesystem(self):
        # a tmpfs barely larger than the database, in a private mount
        # namespace (root only; skipped where mounting is not allowed)
        if os.geteuid() != 0:
            common.env_unable("not root: no private tmpfs mount")
        if shutil.which("unshare") is None:
            self.skipTest("unshare (util-linux) is not installed")
        mnt = os.path.join(self.tmp.name, "mnt")
        os.mkdir(mnt)
        size = (os.path.getsize(self.db) + 96 * 1024) // 1024
        script = ('mount -t tmpfs -o size=%dk tmpfs "$1" || exit 99; '
                  'cp "$2" "$1/t.db"; "$3" --db "$1/t.db" ingest --quiet "$4"; echo "rc=$?"; '
                  'sqlite3 "$1/t.db" "PRAGMA integrity_check"; '
                  'sqlite3 "$1/t.db" "SELECT name FROM run"' % size)
        p = subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", mnt, self.db,
                            common.PROFAN, self.big], capture_output=True, text=True)
        if p.returncode == 99:
            common.env_unable("mount not permitted here: " + p.stderr.strip())
        self.assertEqual(p.stdout, "rc=7\nok\nfirst\n", p.stderr)
        self.assertEqual(p.stderr, "profan: database: cannot commit: database or disk "
                         "is full\n")


class ReadOnlyAndMissing(ProfanTest):

    def test_immutable_database_file(self):
        self.ingest_ok(local("sample-run"), extra=("--name", "first"))
        before = self.db_bytes()
        if shutil.which("chattr") is None:
            self.skipTest("chattr (e2fsprogs) is not installed")
        p = subprocess.run(["chattr", "+i", self.db], capture_output=True, text=True)
        if p.returncode:
            # root bypasses chmod 444, so only the immutable flag can do it
            common.env_unable("chattr +i refused on this filesystem or without"
                              " CAP_LINUX_IMMUTABLE: " + p.stderr.strip())
        try:
            r = self.profan("ingest", shared("traces", "hta-triton.json.gz"))
            self.assertEqual(r.rc, 7, r.err)
            self.assertEqual(r.err, "profan: %s: cannot open database: the file"
                             " is not writable (Operation not permitted)\n"
                             % self.db)
            # readers still work
            self.assertEqual(self.sql("SELECT name FROM run"), [{"name": "first"}])
        finally:
            subprocess.run(["chattr", "-i", self.db])
        self.assertEqual(self.db_bytes()[:len(before)], before[:len(self.db_bytes())])
        self.assertEqual(integrity(self.db), "ok")

    def test_missing_directory(self):
        db = os.path.join(self.tmp.name, "no", "such", "dir", "x.db")
        r = common.run("ingest", local("sample-run"), db=db)
        self.assertEqual(r.rc, 7)
        self.assertEqual(r.err, "profan: %s: cannot create database: no directory"
                         " %s\n" % (db, os.path.dirname(db)))
        r = common.run("runs", db=db)
        self.assertEqual(r.rc, 7)
        self.assertEqual(r.err, "profan: %s: no database here: no directory %s\n"
                         % (db, os.path.dirname(db)))
        self.assertFalse(os.path.exists(os.path.join(self.tmp.name, "no")))


class OldVersionDatabase(ProfanTest):
    """tests/e2e/data/schema7-842c692.sqlite.gz was made by profan at
    commit 842c692 (a development build, schema version 7 of the
    numbering before schema/001-baseline.sql; see make_old_db.sh).  It is
    refused with one line saying what to do, by reading and writing
    commands alike, and left exactly as it was: its version is not
    mistaken for a version of the baseline's numbering."""

    DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                        "schema7-842c692.sqlite.gz")

    def setUp(self):
        super().setUp()
        with gzip.open(self.DATA, "rb") as f, open(self.db, "wb") as g:
            g.write(f.read())

    def test_refused_and_untouched(self):
        with open(self.db, "rb") as f:
            before = f.read()
        want = ("profan: %s: database made by a development build of profan"
                " before the schema baseline (old schema version 7); this"
                " profan cannot read it: ingest the runs' files again into a"
                " new database\n" % self.db)
        for cmd in (("runs",), ("tag", "old-run", "env=old"),
                    ("ingest", shared("traces", "hta-triton.json.gz")),
                    ("rm", "old-run")):
            r = self.profan(*cmd)
            self.assertEqual(r.rc, 7, cmd)
            self.assertEqual(r.err, want, cmd)
        with open(self.db, "rb") as f:
            self.assertEqual(f.read(), before)
        self.assertEqual(integrity(self.db), "ok")
