"""common.py — helpers shared by the end-to-end tests.

The end-to-end tests run the built profan binary on fixtures and compare
its output with numbers computed here, independently, from the input files
(Python's json / gzip modules), never from profan's own database.
"""
import csv
import gzip
import io
import json
import os
import shutil
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared", "fixtures"))
PROFAN = os.environ.get("PROFAN_BIN", os.path.join(ROOT, "build", "profan"))


# The reason prefix of a skip the test declares legitimate: the machine
# cannot do what the test needs (not root, no user namespaces, a filesystem
# without chattr).  run_all.py fails under CI=true on every other skip.
ENV_UNABLE = "environment unable: "


def env_unable(reason):
    """Skip the current test because the environment cannot run it; the
    only kind of skip run_all.py accepts under CI=true."""
    raise unittest.SkipTest(ENV_UNABLE + reason)


# PROFAN_LONG=1 runs the long versions of the loops that have one (a
# series of 100 runs instead of 20, 50 kill points instead of 20); CI and
# a plain run use the short seeded versions, which take every branch the
# long ones do.
LONG = os.environ.get("PROFAN_LONG") == "1"


def sanitized():
    """True when the binary under test is built with AddressSanitizer
    (scripts/test.sh's slow lane).  Each of its runs costs about 50 ms
    more (shadow memory set-up) and its code runs 2-4x slower, so some
    loops take a seeded or representative part there, each saying which;
    the gcc build in the fast lane runs them whole."""
    if not hasattr(sanitized, "v"):
        with open(PROFAN, "rb") as f:
            sanitized.v = b"__asan_init" in f.read()
    return sanitized.v


# A net against a hang for every profan process a test runs (and every
# wait on one), never a speed limit: sized for a sanitizer build on a
# loaded 2-core machine, where a big ingest takes minutes.  A test's
# outcome must not depend on the machine's speed.
TIMEOUT = 900


# The user_version schema/001-baseline.sql gives a database: the highest
# number of the development files it folded (031-095; PROFAN_SCHEMA_BASELINE
# in src/core/db.h).  Files after it are numbered above.
SCHEMA_BASELINE = 95


def schema_version():
    """The schema version of a new database: the number of the last file
    of schema/, the baseline counting as SCHEMA_BASELINE."""
    import glob
    nums = [int(os.path.basename(p)[:3]) for p in glob.glob(
        os.path.join(ROOT, "schema", "[0-9][0-9][0-9]-*.sql"))]
    return max([SCHEMA_BASELINE] + [n for n in nums if n != 1])


def shared(*parts):
    """Path of a real-world fixture in ../shared/fixtures.

    Missing fixtures fail the test under CI=true and skip it otherwise."""
    path = os.path.join(SHARED, *parts)
    if not os.path.exists(path):
        if os.environ.get("CI") == "true":
            raise AssertionError("fixture missing under CI: " + path)
        raise unittest.SkipTest("fixture not found: " + path)
    return path


def need_tool(tool, package):
    """Skip the test when `tool` (from the Debian `package` that
    scripts/setup.sh installs) is missing; under CI=true that is a failure:
    CI must not skip a check because its machine lacks a tool."""
    if shutil.which(tool) is not None:
        return
    if os.environ.get("CI") == "true":
        raise AssertionError("%s is missing under CI (package %s):"
                             " run scripts/setup.sh" % (tool, package))
    env_unable("no %s (package %s; scripts/setup.sh installs it)"
               % (tool, package))


def local(*parts):
    """Path of a fixture the project ships in fixtures/."""
    return os.path.join(ROOT, "fixtures", *parts)


def load_json(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        return json.load(f)


def events(path):
    doc = load_json(path)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


class Result:
    def __init__(self, rc, out, err):
        self.rc, self.out, self.err = rc, out, err

    def rows(self):
        """stdout of a --format csv command as a list of dicts."""
        return list(csv.DictReader(io.StringIO(self.out)))

    def json(self):
        return json.loads(self.out)


def run_unprivileged(*args, db):
    """Run profan with args and --db db as a user that file permissions
    bind: nobody through setpriv when the tests run as root (for whom
    chmod 000 blocks nothing), else the current user itself.  A missing
    setpriv under root is a setup defect (scripts/test.sh installs
    util-linux): AssertionError."""
    cmd = [PROFAN, "--db", db] + [str(a) for a in args]
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            raise AssertionError("setpriv (util-linux) is not installed:"
                                 " run scripts/setup.sh")
        cmd = ["setpriv", "--reuid=65534", "--regid=65534",
               "--clear-groups"] + cmd
    p = subprocess.run(cmd, capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=TIMEOUT)
    return Result(p.returncode, p.stdout, p.stderr)


def run(*args, db=None, env=None, stdin=None):
    """Run profan with args (and --db db); returns a Result."""
    cmd = [PROFAN]
    if db is not None:
        cmd += ["--db", db]
    cmd += [str(a) for a in args]
    e = dict(os.environ)
    if env:
        e.update(env)
    p = subprocess.run(cmd, capture_output=True, text=True, env=e,
                       stdin=subprocess.DEVNULL if stdin is None else stdin,
                       timeout=TIMEOUT)
    return Result(p.returncode, p.stdout, p.stderr)


# ProfanTest.ingest_fixture's databases: (binary, paths, options) -> the
# file, in one temporary folder per process
_FIXTURE_DBS = {}
_FIXTURE_TMP = []


class ProfanTest(unittest.TestCase):
    """Base class: a fresh temporary directory and database per test."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.db = os.path.join(self.tmp.name, "test.db")

    def tearDown(self):
        self.tmp.cleanup()

    def profan(self, *args, **kw):
        return run(*args, db=self.db, **kw)

    def ingest_ok(self, *paths, extra=()):
        r = self.profan("ingest", *extra, *paths)
        self.assertEqual(r.rc, 0, r.err)
        return r

    def ingest_fixture(self, *paths, extra=()):
        """A fixture database, not the ingest under test: `profan ingest
        EXTRA PATHS` into this test's new database, made once per module
        process (the first test that asks runs the ingest, checked as
        ingest_ok checks it) and copied for every later test (a file copy
        instead of an ingest: the tests of a class that all start from the
        same run).  Only into a database that does not exist yet; the
        tests of the ingest itself call ingest_ok."""
        if os.path.exists(self.db):
            raise AssertionError("ingest_fixture: %s exists" % self.db)
        key = (PROFAN, tuple(str(p) for p in paths),
               tuple(str(a) for a in extra))
        src = _FIXTURE_DBS.get(key)
        if src is None:
            if not _FIXTURE_DBS:
                _FIXTURE_TMP.append(tempfile.TemporaryDirectory())
            src = os.path.join(_FIXTURE_TMP[0].name,
                               "f%d.db" % len(_FIXTURE_DBS))
            r = run("ingest", *extra, *paths, db=src)
            self.assertEqual(r.rc, 0, r.err)
            _FIXTURE_DBS[key] = src
        for suffix in ("", "-wal"):
            if os.path.exists(src + suffix):
                shutil.copyfile(src + suffix, self.db + suffix)

    def query(self, name, *args, run_ref="latest"):
        r = self.profan("--format", "csv", "query", name, "--run", run_ref, *args)
        self.assertEqual(r.rc, 0, r.err)
        return r.rows()

    def sql(self, text):
        r = self.profan("--format", "csv", "sql", text)
        self.assertEqual(r.rc, 0, r.err)
        return r.rows()

    def db_bytes(self):
        """Content of the database files (to prove nothing changed)."""
        data = b""
        for suffix in ("", "-wal"):
            p = self.db + suffix
            if os.path.exists(p):
                with open(p, "rb") as f:
                    data += f.read()
        return data
