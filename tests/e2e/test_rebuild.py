"""test_rebuild.py — `profan rebuild [RUN...]`: every derived table of the
runs computed again from their raw rows, by the derive passes ingest and
merge run, in one transaction.

- Every fixture (../shared/fixtures: traces, the dlrm run, snapshots,
  NCCL logs; fixtures/: the sample run, the time regimes, NCCL logs, the
  flight-recorder dumps): after a rebuild every table of the database
  holds what the fresh ingest stored, row by row (numbers within 1e-9
  relative), derived tables and raw rows alike (the oracle is the ingest,
  which the other tests check against the input files).
- Several runs: rebuilding one changes no other run's rows, and its own
  rows equal the ingest's (collective ids are new: compared by content).
- A definition edited with SQL (a category rule) reaches the stored run
  metrics by a rebuild: the share of the new category is the share of its
  kernels' time in the trace files, computed here from the JSON.
- Nothing lost: an unknown RUN, a run of a --summaries-only history
  (named: refused; by default: skipped), a derive pass that fails (a
  trigger that aborts an insert into a derived table) and a rebuild
  killed at random points leave the database as it was.
The fault-injection loops (tests/e2e/fault_*.py, scripts/fault.sh) run
`rebuild` as one of their scenarios: failed allocations, I/O errors and
power loss at every point.
"""
import glob
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import time

import common
import trace_reference as ref
from common import ProfanTest, PROFAN, local, shared


def fixtures():
    """Every input of ../shared/fixtures and fixtures/ that ingests: one
    path (file or run directory) each."""
    s, l = common.SHARED, os.path.join(common.ROOT, "fixtures")
    out = sorted(glob.glob(os.path.join(s, "traces", "*")))
    out += [os.path.join(s, "runs", "dlrm-8rank"), local("sample-run")]
    out += sorted(p for p in glob.glob(os.path.join(s, "snapshots", "*"))
                  if "not-a-snapshot" not in p)
    out += sorted(glob.glob(os.path.join(s, "nccl", "*.log")))
    out += sorted(glob.glob(os.path.join(l, "nccl", "*.log")))
    out += sorted(glob.glob(os.path.join(l, "regimes", "*.json")))
    out += sorted(d for d in glob.glob(os.path.join(l, "flight_recorder", "*"))
                  if os.path.isdir(d))
    return out


def tables(db, run_id=None, skip=()):
    """{table: sorted rows} of every table (of one run when run_id is
    given: the tables with a run_id column), read with Python's sqlite3."""
    con = sqlite3.connect(db)
    try:
        out = {}
        for (t,) in con.execute("SELECT name FROM sqlite_schema WHERE type ="
                                " 'table' AND name NOT LIKE 'sqlite_%'"):
            cols = [c[1] for c in con.execute('PRAGMA table_info("%s")' % t)
                    if c[1] not in skip]
            if run_id is not None and "run_id" not in cols:
                continue
            sql = "SELECT %s FROM \"%s\"" % (", ".join('"%s"' % c
                                                      for c in cols), t)
            if run_id is not None:
                sql += " WHERE run_id = %d" % run_id
            out[t] = sorted(con.execute(sql).fetchall(), key=repr)
        return out
    finally:
        con.close()


def same_rows(a, b):
    """Row lists equal, numbers within 1e-9 relative."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        for u, v in zip(x, y):
            if isinstance(u, float) or isinstance(v, float):
                if u is None or v is None or \
                        abs(u - v) > 1e-9 * max(1.0, abs(u)):
                    return False
            elif u != v:
                return False
    return True


class RebuildEqualsIngest(ProfanTest):

    def test_every_fixture(self):
        paths = fixtures()
        self.assertGreater(len(paths), 40)
        for path in paths:
            with self.subTest(fixture=os.path.relpath(path, common.ROOT)):
                if os.path.exists(self.db):
                    os.unlink(self.db)
                self.ingest_ok("-q", path)
                want = tables(self.db)
                r = self.profan("rebuild")
                self.assertEqual(r.rc, 0, r.err)
                got = tables(self.db)
                self.assertEqual(sorted(got), sorted(want))
                bad = [t for t in want if not same_rows(want[t], got[t])]
                self.assertEqual(bad, [])
                # something was derived at all (not two empty databases)
                self.assertGreater(sum(len(v) for v in want.values()), 100)

    def test_one_run_of_several(self):
        self.ingest_ok(shared("runs", "dlrm-8rank"), extra=("--name", "d"))
        self.ingest_ok(local("sample-run"), extra=("--name", "s"))
        self.ingest_ok(shared("snapshots", "tomi-small.pickle"),
                       extra=("--name", "m"))
        # row ids, which move when a run's rows are written again
        ids = ("id",)
        want = {k: tables(self.db, k, skip=ids) for k in (1, 2, 3)}
        windows = self.window_keys()
        r = self.profan("rebuild", "d")
        self.assertEqual(r.rc, 0, r.err)
        self.assertEqual(r.err.splitlines()[0][:25], "profan: rebuilt run 1 (d)")
        for k in (1, 2, 3):
            got = tables(self.db, k, skip=ids)
            bad = [t for t in want[k]
                   if t != "collective_window"
                   and not same_rows(want[k][t], got[t])]
            self.assertEqual(bad, [], k)
        self.assertGreater(len(want[1]["collective"]), 0)
        self.assertEqual(self.window_keys(), windows)

    def window_keys(self):
        """collective_window by its collective's kernel (ids change)."""
        return sorted(tuple(r.values()) for r in self.sql(
            "SELECT c.run_id, c.kernel_id, w.window_ns, w.compute_ns,"
            " w.idle_ns FROM collective_window w JOIN collective c"
            " ON c.id = w.collective_id"))


class DefinitionChange(ProfanTest):

    def test_a_new_category_rule_reaches_the_run_metrics(self):
        run = local("sample-run")
        self.ingest_ok(run)
        metric = "cat_detailed:Activation_pct"
        sql = ("SELECT value FROM core_run_metric WHERE metric = '%s'"
               % metric)
        self.assertEqual(self.sql(sql), [])
        subprocess.run(["sqlite3", self.db, "INSERT INTO category_rule"
                        " VALUES('detailed', 1, 'relu', 'Activation')"],
                       check=True)
        self.assertEqual(self.sql(sql), [])        # stored: not yet
        r = self.profan("rebuild")
        self.assertEqual(r.rc, 0, r.err)
        # the share of the relu kernels in the GPU activity of the files
        relu = total = 0
        for path in sorted(glob.glob(os.path.join(run, "*.json.gz"))):
            for e in common.events(path):
                if ref.kind_of(e) in ("kernel", "memcpy", "memset"):
                    ns = max(0, ref.us_to_ns(e.get("dur", 0)))
                    total += ns
                    if ref.kind_of(e) == "kernel" and "relu" in e["name"]:
                        relu += ns
        self.assertGreater(relu, 0)
        got = float(self.sql(sql)[0]["value"])
        self.assertAlmostEqual(got, 100.0 * relu / total, places=6)


class NothingLost(ProfanTest):

    def test_unknown_run(self):
        self.ingest_ok(local("sample-run"), extra=("--name", "s"))
        before = self.db_bytes()
        r = self.profan("rebuild", "s", "nope")
        self.assertEqual(r.rc, 2)
        self.assertEqual(r.err, "profan: no run 'nope' (give an id, a name, or"
                         " 'latest'; 'profan runs' lists them)\nprofan:"
                         " nothing rebuilt (1 of 2 RUNs not found)\n")
        self.assertEqual(self.db_bytes(), before)

    def test_history_runs_are_skipped_or_refused(self):
        src = os.path.join(self.tmp.name, "src.db")
        r = common.run("ingest", "-q", "--name", "a", local("sample-run"),
                       db=src)
        self.assertEqual(r.rc, 0, r.err)
        r = common.run("merge", "--summaries-only", "--into", self.db, src,
                       db=None)
        self.assertEqual(r.rc, 0, r.err)
        self.ingest_ok(shared("traces", "hta-triton.json.gz"),
                       extra=("--name", "b"))
        before = tables(self.db)
        r = self.profan("rebuild", "a")
        self.assertEqual(r.rc, 2)
        self.assertEqual(r.err, "profan: run 1 (a) holds summaries only (a"
                         " merge --summaries-only history): no raw rows to"
                         " rebuild it from; nothing rebuilt\n")
        r = self.profan("rebuild")
        self.assertEqual(r.rc, 0, r.err)
        self.assertEqual(r.err.splitlines(), [
            "profan: run 1 (a) holds summaries only (a merge"
            " --summaries-only history): nothing to rebuild it from;"
            " skipped",
            r.err.splitlines()[1]])
        self.assertTrue(r.err.splitlines()[1].startswith(
            "profan: rebuilt run 2 (b): "))
        after = tables(self.db)
        self.assertEqual([t for t in before
                          if not same_rows(before[t], after[t])], [])

    def test_a_failing_pass_leaves_the_database_as_it_was(self):
        self.ingest_ok(local("sample-run"))
        subprocess.run(["sqlite3", self.db, "CREATE TRIGGER boom BEFORE"
                        " INSERT ON core_run_metric BEGIN SELECT"
                        " RAISE(ABORT, 'boom'); END"], check=True)
        before = self.db_bytes()
        want = tables(self.db)
        r = self.profan("rebuild")
        self.assertEqual(r.rc, 7)
        self.assertRegex(r.err, r"^profan: run 1 \(sample-run\): .*boom.*;"
                         r" nothing rebuilt\n$")
        self.assertEqual(self.db_bytes(), before)
        self.assertEqual(tables(self.db), want)

    def test_killed_rebuild_leaves_the_database_as_it_was(self):
        self.ingest_ok(shared("traces", "hta-diff-control-a100-rank3.json.gz"))
        # one whole rebuild first: how long it takes on this machine now,
        # so that the kills land inside it however fast or loaded it is
        t0 = time.monotonic()
        self.assertEqual(self.profan("rebuild").rc, 0)
        full = time.monotonic() - t0
        want = tables(self.db)
        with open(self.db, "rb") as f:
            main = f.read()
        killed = 0
        for delay in (full * x for x in (0.05, 0.2, 0.4, 0.6, 0.8, 1.5)):
            p = subprocess.Popen([PROFAN, "--db", self.db, "rebuild"],
                                 stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            time.sleep(delay)
            p.send_signal(signal.SIGKILL)
            rc = p.wait()
            if rc == 0:
                break                 # it finished before the kill
            self.assertEqual(rc, -signal.SIGKILL)
            with open(self.db, "rb") as f:
                now = f.read()
            self.assertEqual(tables(self.db), want)
            if now != main:
                # the kill came after the rebuild's one transaction had
                # committed (its checkpoint then writes the file): exactly
                # one commit in the header's change counter, the same rows
                self.assertEqual(int.from_bytes(now[24:28], "big"),
                                 int.from_bytes(main[24:28], "big") + 1,
                                 "killed after %g s" % delay)
                break
            killed += 1
        self.assertGreaterEqual(killed, 2)


if __name__ == "__main__":
    import unittest
    unittest.main()
