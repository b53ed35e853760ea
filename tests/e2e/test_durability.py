"""test_durability.py — an ingest killed at any point loses nothing.

The focus of this file is the "one transaction per ingest" contract under
kill -9 (SIGKILL at a spread of moments during a real trace's ingest) and
under two writers at once: the database passes PRAGMA integrity_check,
keeps every run that had completed, and never holds a half run.
"""
import os
import signal
import subprocess
import time

import common
from common import ProfanTest, shared


class KillNine(ProfanTest):

    def test_sigkill_during_ingest(self):
        self.ingest_ok(shared("traces", "hta-triton.json.gz"), extra=("--name", "kept"))
        big = shared("traces", "hta-diff-control-a100-rank3.json.gz")
        # let one full ingest tell how long it takes, then kill at fractions
        t0 = time.time()
        r = self.profan("ingest", "--name", "probe", big)
        self.assertEqual(r.rc, 0, r.err)
        full = time.time() - t0
        self.profan("rm", "probe")
        for k in range(8):
            delay = full * (k + 0.5) / 8
            p = subprocess.Popen([common.PROFAN, "--db", self.db, "ingest", "--quiet",
                                  "--name", "killed%d" % k, big],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(delay)
            p.send_signal(signal.SIGKILL)
            p.wait()
            ok = subprocess.run(["sqlite3", self.db, "PRAGMA integrity_check"],
                                capture_output=True, text=True).stdout.strip()
            self.assertEqual(ok, "ok", "after a kill at %.2fs" % delay)
            runs = [r["name"] for r in self.sql("SELECT name FROM run ORDER BY id")]
            self.assertEqual(runs[0], "kept")
            for name in runs[1:]:
                # a run that is there is complete: it has its derived rows
                n = self.sql("SELECT count(*) AS n FROM gpu_op_summary g JOIN run r"
                             " ON r.id = g.run_id WHERE r.name = '%s'" % name)[0]["n"]
                self.assertGreater(int(n), 0, name)
                self.profan("rm", name)
        self.assertEqual(self.query("top-kernels", run_ref="kept")[0]["count"], "1")


class TwoWriters(ProfanTest):

    def test_concurrent_ingests_both_succeed(self):
        a = shared("traces", "hta-diff-test-v100-rank1.json.gz")
        b = shared("traces", "param-linear-2080ti.json.gz")
        pa = subprocess.Popen([common.PROFAN, "--db", self.db, "ingest", "--quiet", a],
                              stderr=subprocess.PIPE, text=True)
        time.sleep(0.05)
        pb = subprocess.Popen([common.PROFAN, "--db", self.db, "ingest", "--quiet", b],
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
        time.sleep(0.1)
        # a reader is not blocked while the writer holds its transaction
        t0 = time.time()
        rows = self.query("top-kernels", run_ref="first")
        self.assertLess(time.time() - t0, 5)
        self.assertEqual(rows[0]["count"], "1")
        p.communicate()
        self.assertEqual(p.returncode, 0)
