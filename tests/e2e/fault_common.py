"""fault_common.py — the scenarios and checks shared by the fault-injection
loops (fault_malloc.py, fault_io.py, fault_crash.py).

The binary under test is a fault build (cmake -DPROFAN_FAULT=ON, see
src/core/fault.c): PROFAN_FAULT_BIN, else build-fault/profan, else PROFAN_BIN;
the tests skip when it has no fault hooks.  PROFAN_FAULT_MODE=full runs
every injection point up to PROFAN_FAULT_MAX (6000) and evenly spaced ones
beyond (scripts/fault.sh); the default "short" mode takes PROFAN_FAULT_POINTS
(24) evenly spaced points per scenario (scripts/test.sh); the power-loss
loop always takes every sync.

A scenario is one command on one database: ingest of a trace, of a
multi-rank run, of a trace in the 2021 layout (calls before ops, ops in
end order), of a memory snapshot, of an NCCL log, of a flight-recorder
dump (pickle and JSON), the first ingest into a new database, rm, tag,
baseline and rebuild.  Its oracle is the same command run without a fault: the table
row counts, runs, tags and baselines it leaves are what every successful
faulted run must leave too; every failed run must leave the database files
byte-for-byte as they were (a new database: no file at all).
"""
import atexit
import concurrent.futures
import gzip
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
import time
import unittest

import common
from common import local

FAULT_ROOT = common.ROOT
SAN = re.compile(r"Sanitizer|runtime error:|LeakSanitizer|==\d+==")
MODE = os.environ.get("PROFAN_FAULT_MODE", "short")
SHORT_POINTS = int(os.environ.get("PROFAN_FAULT_POINTS", "24"))
JOBS = int(os.environ.get("PROFAN_FAULT_JOBS", "2"))
CRASH_EXIT = 86


def fault_bin():
    """The fault build to drive, or None."""
    for p in (os.environ.get("PROFAN_FAULT_BIN"),
              os.path.join(FAULT_ROOT, "build-fault", "profan"),
              common.PROFAN):
        if p and os.path.exists(p):
            with open(p, "rb") as f:
                if b"PROFAN_FAULT_COUNTS" in f.read():
                    return os.path.abspath(p)
    return None


def shared_or_skip(*parts):
    return common.shared(*parts)


_LAYOUT_2021 = []


def layout_2021():
    """Rank 0 of the sample run in the 2021 profiler's layout, written once
    per process: its runtime calls first, then its CPU ops in end order
    (an op after the ops it encloses), then the rest.  Its ingest takes
    the in-stream linker's deferred paths (ops waiting for their start
    order, calls waiting for their ops: src/core/spool.c)."""
    if not _LAYOUT_2021:
        d = tempfile.mkdtemp(prefix="profan-fault-")
        atexit.register(shutil.rmtree, d, True)
        doc = json.loads(gzip.open(local(
            "sample-run", "host_4000.1767189312000000000.pt.trace.json.gz"),
            "rt").read())
        evs = doc["traceEvents"]
        calls = [e for e in evs if e.get("cat") == "cuda_runtime"]
        ops = [e for e in evs if e.get("cat") == "cpu_op"
               and e.get("ph") == "X"]
        rest = [e for e in evs if e not in calls and e not in ops]
        ops.sort(key=lambda e: (e["ts"] + e.get("dur", 0), -e["ts"]))
        doc["traceEvents"] = calls + ops + rest
        path = os.path.join(d, "layout-2021.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        _LAYOUT_2021.append(path)
    return _LAYOUT_2021[0]


def scenarios():
    """name -> (setup commands, the command, new database?).  Setup
    commands run without faults on the database first."""
    trace_a = shared_or_skip("traces", "hta-compare-base.json.gz")
    trace_b = shared_or_skip("traces", "hta-compare-test.json.gz")
    base = [["ingest", "--name", "a", trace_a],
            ["ingest", "--name", "two-rank", local("sample-run")],
            ["tag", "a", "team=x"],
            ["baseline", "set", "main", "a"]]
    return {
        "ingest-new-db": ([], ["ingest", "--name", "n", trace_a], True),
        "ingest-trace": (base, ["ingest", "--name", "t", "--tag", "k=v",
                                trace_b], False),
        "ingest-multirank": (base[:1], ["ingest", local("sample-run")], False),
        "ingest-2021-layout": (base[:1], ["ingest", layout_2021()], False),
        "ingest-snapshot": (base, ["ingest", shared_or_skip(
            "snapshots", "empty-snapshot.pickle")], False),
        "ingest-nccl": (base, ["ingest", shared_or_skip(
            "nccl", "ddp-2rank-interleaved.log")], False),
        "ingest-fr-pickle": (base, ["ingest", local("flight_recorder",
                                                   "clean")], False),
        "ingest-fr-json": (base, ["ingest", local("flight_recorder",
                                                 "clean_json")], False),
        "ingest-replace": (base, ["ingest", "--replace", "--name", "a",
                                  trace_a], False),
        "rm": (base, ["rm", "two-rank"], False),
        "rebuild": (base, ["rebuild"], False),
        "tag": (base, ["tag", "two-rank", "k=v", "team=y", "--rm",
                       "team"], False),
        "baseline": (base, ["baseline", "set", "main", "two-rank"], False),
    }


def signature(db):
    """What a command leaves: row count of every table, the runs (name,
    content hash), tags and baselines; None when there is no database.
    Read with Python's sqlite3, never with profan."""
    if not os.path.exists(db):
        return None
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        tabs = [r[0] for r in con.execute(
            "SELECT name FROM sqlite_schema WHERE type='table' ORDER BY name")]
        if "run" not in tabs:           # not a profan database (yet)
            return {"tables": tabs}
        sig = {t: con.execute('SELECT count(*) FROM "%s"' % t).fetchone()[0]
               for t in tabs}
        sig["runs"] = con.execute(
            "SELECT name, content_hash FROM run ORDER BY name").fetchall()
        sig["tags"] = con.execute(
            "SELECT r.name, key, value FROM run_tag JOIN run r ON r.id=run_id"
            " ORDER BY 1, 2").fetchall()
        sig["baselines"] = con.execute(
            "SELECT b.name, r.name FROM baseline b JOIN run r ON r.id=run_id"
            " ORDER BY 1").fetchall()
        return sig
    finally:
        con.close()


def integrity(db):
    con = sqlite3.connect(db)
    try:
        return con.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        con.close()


def files_hash(d):
    """Name and content hash of every file in d (to prove nothing changed)."""
    out = {}
    for name in sorted(os.listdir(d)):
        with open(os.path.join(d, name), "rb") as f:
            out[name] = hashlib.sha256(f.read()).hexdigest()
    return out


def read_counts(path):
    counts = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                k, _, v = line.strip().partition(" ")
                counts[k] = v if k == "fired" else int(v)
    return counts


class Scenario:
    """One scenario's database, prepared once; each attempt runs in a copy."""

    def __init__(self, binary, name, setup, cmd, new_db, workdir):
        self.binary, self.name, self.cmd, self.new_db = binary, name, cmd, new_db
        self.dir = tempfile.mkdtemp(prefix=name + "-", dir=workdir)
        os.makedirs(os.path.join(self.dir, "orig"))
        self.orig_db = os.path.join(self.dir, "orig", "p.db")
        for c in setup:
            r = self.run(self.orig_db, c, {})
            if r.returncode != 0:
                raise AssertionError("setup %s: %s" % (c, r.stderr))
        self.orig_files = files_hash(os.path.join(self.dir, "orig"))
        self.orig_sig = signature(self.orig_db)
        clean = self.attempt({}, "clean")
        if clean["rc"] != 0:
            raise AssertionError("%s without a fault: %s" % (name, clean["err"]))
        self.want_sig = clean["sig"]
        self.counts = clean["counts"]

    def run(self, db, cmd, env):
        e = dict(os.environ)
        for k in list(e):
            if k.startswith("PROFAN_FAULT_") and k != "PROFAN_FAULT_BIN":
                del e[k]
        e.update(env)
        e.setdefault("ASAN_OPTIONS", "detect_leaks=1")
        return subprocess.run([self.binary, "--db", db] + cmd,
                              capture_output=True, text=True, env=e,
                              stdin=subprocess.DEVNULL, timeout=common.TIMEOUT)

    def attempt(self, env, tag):
        """Run the command in a fresh copy with env; returns what happened."""
        d = os.path.join(self.dir, tag)
        shutil.rmtree(d, ignore_errors=True)
        if self.new_db:
            os.makedirs(d)
        else:
            shutil.copytree(os.path.join(self.dir, "orig"), d)
        db = os.path.join(d, "p.db")
        counts = os.path.join(self.dir, tag + ".counts")
        env = dict(env, PROFAN_FAULT_COUNTS=counts)
        r = self.run(db, self.cmd, env)
        res = {"rc": r.returncode, "err": r.stderr, "dir": d, "db": db,
               "counts": read_counts(counts)}
        if r.returncode == 0 or r.returncode == CRASH_EXIT:
            res["sig"] = signature(db)
        return res

    def cleanup(self, tag):
        shutil.rmtree(os.path.join(self.dir, tag), ignore_errors=True)
        try:
            os.unlink(os.path.join(self.dir, tag + ".counts"))
        except FileNotFoundError:
            pass


FULL_MAX = int(os.environ.get("PROFAN_FAULT_MAX", "6000"))


def points(total, every=False):
    """The injection points to try out of 1..total, plus one past it: all
    of them (every, or full mode up to FULL_MAX), else evenly spaced."""
    want = total if every else FULL_MAX if MODE == "full" else SHORT_POINTS
    if total <= want:
        return list(range(1, total + 2))
    step = total / want
    pts = sorted({1 + int(i * step) for i in range(want)})
    return pts + [total + 1]


_WORKDIR = []


def _workdir():
    """One scratch directory per process (in /dev/shm when there is one),
    removed at exit."""
    if not _WORKDIR:
        _WORKDIR.append(tempfile.mkdtemp(
            prefix="profan-fault-",
            dir="/dev/shm" if os.access("/dev/shm", os.W_OK) else None))
        atexit.register(shutil.rmtree, _WORKDIR[0], True)
    return _WORKDIR[0]


class FaultLoop(unittest.TestCase):
    """Base of the three loops: scenarios built once per class."""

    VAR = None              # PROFAN_FAULT_MALLOC / _IO / _CRASH
    COUNT = None            # the counts-file key that sizes the loop
    stats = {}

    @classmethod
    def setUpClass(cls):
        cls.stats = {}
        cls.binary = fault_bin()
        if cls.binary is None:
            raise unittest.SkipTest("no fault build (cmake -DPROFAN_FAULT=ON;"
                                    " PROFAN_FAULT_BIN)")

    @classmethod
    def tearDownClass(cls):
        report = os.environ.get("PROFAN_FAULT_REPORT")
        if report and cls.stats:
            with open(report, "a") as f:
                for name, st in sorted(cls.stats.items()):
                    f.write("%s %s points=%d total=%d failed=%d ok=%d "
                            "seconds=%.1f\n" % (cls.VAR, name, st["points"],
                                                st["total"], st["failed"],
                                                st["ok"], st["seconds"]))

    _cache = {}             # (binary, name) -> Scenario, for the process

    def scenario(self, name):
        """The scenario, set up once per process (every loop and variant
        runs its attempts in copies of the same prepared database)."""
        key = (self.binary, name)
        if key not in FaultLoop._cache:
            setup, cmd, new_db = scenarios()[name]
            FaultLoop._cache[key] = Scenario(self.binary, name, setup, cmd,
                                             new_db, _workdir())
        return FaultLoop._cache[key]

    def check_failed(self, sc, res, what, rc=7):
        """A failed attempt: one clear line, exit rc (7, a database or
        memory failure; 6 for a read of an input file), no sanitizer
        report, the database files exactly as before."""
        err = res["err"]
        self.assertFalse(SAN.search(err), "%s: sanitizer: %s" % (what, err))
        self.assertEqual(err.count("\n"), 1, "%s: not one line: %r" % (what, err))
        self.assertTrue(err.startswith("profan: "), "%s: %r" % (what, err))
        self.assertEqual(res["rc"], rc, "%s: exit %d: %r" % (what, res["rc"], err))
        d = res["dir"]
        if sc.new_db:
            self.assertEqual(os.listdir(d), [], "%s: left behind: %s"
                             % (what, os.listdir(d)))
            return
        now = files_hash(d)
        main = os.path.basename(sc.orig_db)
        self.assertEqual(now.get(main), sc.orig_files[main],
                         "%s: database file changed (%r)" % (what, err))
        extra = set(now) - set(sc.orig_files) - {main + "-wal", main + "-shm"}
        self.assertEqual(extra, set(), what)
        # a WAL left by a process that exited mid-transaction holds no
        # committed frame: the content reads as before
        self.assertEqual(signature(res["db"]), sc.orig_sig, what)

    def check_ok(self, sc, res, what):
        """A successful attempt (the fault missed, or SQLite absorbed it):
        the same result as the command without a fault."""
        self.assertFalse(SAN.search(res["err"]), "%s: sanitizer: %s"
                         % (what, res["err"]))
        self.assertEqual(res["sig"], sc.want_sig, what)
        self.assertEqual(integrity(res["db"]), "ok", what)

    EVERY = False           # every point even in short mode (syncs: few)

    def loop(self, name, judge, env_extra=None):
        """Run scenario name for every chosen N of self.VAR; judge(sc, res,
        what) checks one attempt.  Records the counts for the report."""
        t0 = time.time()
        sc = self.scenario(name)
        total = sc.counts.get(self.COUNT, 0)
        pts = points(total, self.EVERY)
        n_failed = n_ok = 0

        def one(n):
            env = {self.VAR: str(n)}
            env.update(env_extra or {})
            tag = "n%d" % n
            res = sc.attempt(env, tag)
            return n, tag, res

        with concurrent.futures.ThreadPoolExecutor(JOBS) as ex:
            for n, tag, res in ex.map(one, pts):
                what = "%s %s=%d (of %d)" % (name, self.VAR, n, total)
                failed = judge(sc, res, what)
                n_failed += failed
                n_ok += not failed
                sc.cleanup(tag)
        key = name + "".join(",%s=%s" % kv for kv in sorted(
            (env_extra or {}).items()))
        type(self).stats[key] = {"points": len(pts), "total": total,
                                  "failed": n_failed, "ok": n_ok,
                                  "seconds": time.time() - t0}
        return sc


# The commands every loop runs, one test per scenario (and variant).
SCENARIOS = ("ingest-new-db", "ingest-trace", "ingest-multirank",
             "ingest-2021-layout", "ingest-snapshot", "ingest-nccl", "ingest-fr-pickle",
             "ingest-fr-json", "ingest-replace", "rm", "tag", "baseline",
             "rebuild")


def add_scenario_tests(cls, variants=((None, None),)):
    """Give cls one test_NAME[SUFFIX] per scenario and (suffix, env)
    variant, each running cls.loop(name, cls.judge, env)."""
    def make(name, env):
        def test(self):
            if env is None:
                self.loop(name, self.judge)
            else:
                self.loop(name, self.judge, env)
        return test
    for name in SCENARIOS:
        for suffix, env in variants:
            setattr(cls, "test_" + name.replace("-", "_") + (suffix or ""),
                    make(name, env))
