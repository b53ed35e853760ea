"""test_threads.py — the parser threads of an ingest
(src/ingest/ingest_trace.c: N parser threads, one writer).

Every thread count stores the rows the input has: the kernels, CPU ops and
runtime calls of each rank of dlrm-8rank, counted here from the JSON, with
1 thread, 3 threads (files left over for whichever thread is free) and
more threads than files.  A parser thread the system refuses to start
(RLIMIT_NPROC for an unprivileged user, through setpriv and prlimit)
leaves its files to the others, with a note; when none starts the ingest
fails with exit 7 (a system resource, like memory) and writes nothing.
One bad file among many stops every thread (the abort flag): exit 6 with
the bad file's line, the database as before, whichever thread parses it
and wherever it lies among the files.

scripts/tsan.sh runs this module, among others, on a ThreadSanitizer
build: the ingests here are the multi-file ones the threads share.
"""
import gzip
import os
import shutil
import subprocess
import tempfile
import unittest
from collections import Counter

import common
from common import ProfanTest, shared

DLRM = ("runs", "dlrm-8rank")


def expected_counts(run_dir):
    """(rank, category) -> events, from the traces' JSON."""
    want = Counter()
    for f in sorted(os.listdir(run_dir)):
        doc = common.load_json(os.path.join(run_dir, f))
        rank = doc["distributedInfo"]["rank"]
        for e in doc["traceEvents"]:
            if e.get("ph") == "X" and e.get("cat") in (
                    "kernel", "cpu_op", "cuda_runtime"):
                want[(rank, e["cat"])] += 1
    return want


def stored_counts(test):
    got = Counter()
    for table, cat in (("kernel", "kernel"), ("cpu_op", "cpu_op"),
                       ("runtime_call", "cuda_runtime")):
        for r in test.sql("SELECT rank, count(*) AS n FROM %s GROUP BY rank"
                          % table):
            got[(int(r["rank"]), cat)] = int(r["n"])
    return got


class ThreadCounts(ProfanTest):

    def test_every_thread_count_stores_every_row(self):
        run_dir = shared(*DLRM)
        want = expected_counts(run_dir)
        self.assertEqual(len({rank for rank, _ in want}), 8)
        for n in (1, 3, 16):
            with self.subTest(threads=n):
                self.db = os.path.join(self.tmp.name, "t%d.db" % n)
                self.ingest_ok(run_dir, extra=["--quiet", "--threads",
                                               str(n)])
                self.assertEqual(stored_counts(self), want)


class BadFileAmongMany(ProfanTest):
    """The writer fails while parser threads still run: they stop, the
    queue drains, the threads join, nothing is written."""

    def test_one_truncated_file_aborts_the_ingest(self):
        names = sorted(os.listdir(shared(*DLRM)))
        for pos, n in ((0, 2), (4, 3), (7, 2), (7, 16)):
            with self.subTest(bad_file=pos, threads=n):
                run_dir = os.path.join(self.tmp.name, "run%d-%d" % (pos, n))
                shutil.copytree(shared(*DLRM), run_dir)
                for f in names:
                    os.chmod(os.path.join(run_dir, f), 0o644)
                gz = os.path.join(run_dir, names[pos])
                with gzip.open(gz, "rb") as fh:
                    data = fh.read()
                os.unlink(gz)
                # the cut lies past the first events: the parser has
                # handed batches to the writer before it fails
                cut = len(data) * 2 // 3
                bad = gz[:-len(".gz")]
                with open(bad, "wb") as fh:
                    fh.write(data[:cut])
                self.db = os.path.join(self.tmp.name, "b%d-%d.db" % (pos, n))
                self.ingest_ok(shared("runs", "dlrm-8rank", names[1]),
                               extra=["--quiet", "--name", "first"])
                before = self.db_bytes()
                r = self.profan("ingest", "--threads", str(n), run_dir)
                self.assertEqual(r.rc, 6, r.err)
                self.assertEqual(r.err, "profan: %s:%d: truncated JSON: the"
                                 " file ends inside the trace\n" % (bad, cut))
                self.assertEqual(self.db_bytes(), before)


# A uid of its own for each test process: RLIMIT_NPROC counts every
# process and thread of the user, so another test's process running as
# nobody at the same time must not count against this one's limit.
UID = 40000 + os.getpid() % 20000


class RefusedThreads(ProfanTest):
    """Thread creation refused by the system: a real limit, not a mock."""

    def setUp(self):
        super().setUp()
        if os.geteuid() != 0:
            # a user's limit counts all of that user's processes, so the
            # limit cannot be placed between "one thread" and "two"
            common.env_unable("not root: no user of its own for RLIMIT_NPROC")
        for tool in ("setpriv", "prlimit"):
            if shutil.which(tool) is None:
                raise AssertionError("%s (util-linux) is not installed:"
                                     " run scripts/setup.sh" % tool)
        # a directory the unprivileged user can write, the traces in it
        os.chmod(self.tmp.name, 0o777)
        self.run_dir = os.path.join(self.tmp.name, "run")
        shutil.copytree(shared(*DLRM), self.run_dir)
        for f in os.listdir(self.run_dir):
            os.chmod(os.path.join(self.run_dir, f), 0o644)
        os.chmod(self.run_dir, 0o755)

    def limited(self, nproc, *args):
        """profan --db self.db ARGS as UID with at most nproc processes
        and threads (the process itself is one)."""
        cmd = ["setpriv", "--reuid=%d" % UID, "--regid=%d" % UID,
               "--clear-groups", "prlimit", "--nproc=%d" % nproc, "--",
               common.PROFAN, "--db", self.db] + list(args)
        # unchecked thread creation hangs or crashes here: a timeout, not
        # a wait for ever
        # LeakSanitizer stops the world at exit from a thread of its own,
        # which this limit refuses too (an ASan build then aborts after
        # profan's own exit): no leak check in these runs
        env = dict(os.environ)
        env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") +
                               ":detect_leaks=0").lstrip(":")
        p = subprocess.run(cmd, capture_output=True, text=True, env=env,
                           stdin=subprocess.DEVNULL, timeout=common.TIMEOUT)
        return common.Result(p.returncode, p.stdout, p.stderr)

    def one_parser(self):
        """The process limit at which one parser thread starts and a
        second one does not: the process, the threads of its runtime
        (ThreadSanitizer has one of its own) and one parser.  Found by
        trying, on a database thrown away, the smallest limit under which
        a one-file ingest works."""
        keep, self.db = self.db, os.path.join(self.tmp.name, "probe.db")
        one = os.path.join(self.run_dir, sorted(os.listdir(self.run_dir))[0])
        try:
            for n in range(2, 9):
                if self.limited(n, "ingest", "--quiet", "--threads", "1",
                                one).rc == 0:
                    return n
            raise AssertionError("no one-file ingest under 8 processes")
        finally:
            self.db = keep

    def test_one_thread_refused_the_other_parses_all(self):
        # the process and one parser thread: the second thread is refused
        r = self.limited(self.one_parser(), "ingest", "--threads", "2",
                         self.run_dir)
        self.assertEqual(r.rc, 0, r.err)
        self.assertIn("profan: note: 1 of 2 parser threads started"
                      " (Resource temporarily unavailable)\n", r.err)
        self.assertEqual(stored_counts(self), expected_counts(self.run_dir))

    def test_no_thread_fails_and_writes_nothing(self):
        none = self.one_parser() - 1
        r = self.limited(none, "ingest", "--threads", "2", self.run_dir)
        self.assertEqual(r.rc, 7, r.err)
        self.assertEqual(r.err, "profan: cannot start a parser thread"
                         " (Resource temporarily unavailable)\n")
        self.assertFalse(os.path.exists(self.db))   # a new database: none
        self.assertEqual([n for n in os.listdir(self.tmp.name)
                          if n.startswith("test.db")], [])
        # an existing database: byte for byte as before
        r = self.limited(50, "ingest", "--quiet", "--name", "first",
                         os.path.join(self.run_dir, sorted(
                             os.listdir(self.run_dir))[0]))
        self.assertEqual(r.rc, 0, r.err)
        before = self.db_bytes()
        r = self.limited(none, "ingest", "--threads", "2", self.run_dir)
        self.assertEqual(r.rc, 7, r.err)
        self.assertEqual(r.err, "profan: cannot start a parser thread"
                         " (Resource temporarily unavailable)\n")
        self.assertEqual(self.db_bytes(), before)


if __name__ == "__main__":
    unittest.main()
