"""fault_crash.py — the power-loss loop (issue #20).

For every scenario of fault_common.py the command runs with
PROFAN_FAULT_CRASH=N for N = 1, 2, ... past the number of syncs a run
without a fault makes (SQLite's syncs through the "fault" VFS shim, and
profan's own fsync of a new database before it is linked into place).  At
the Nth sync the power goes out: every write to a file since that file's
last sync is undone (with PROFAN_FAULT_TEAR=S: each 512-byte sector of
those writes, and each file's growth, is kept or undone at random, seeds
1-3), and the process stops (_exit 86).  Then the database is opened again
with Python's sqlite3: PRAGMA integrity_check is "ok", and it holds either
exactly what it held before or exactly what the command makes without a
fault — never part of a run; every run committed before is intact (a new
database: no file, or the whole run).  A later profan command works on it.
"""
import os
import unittest

from fault_common import (CRASH_EXIT, FaultLoop, add_scenario_tests,
                          integrity, signature)


class CrashLoop(FaultLoop):
    VAR = "PROFAN_FAULT_CRASH"
    COUNT = "sync"
    EVERY = True

    def judge(self, sc, res, what):
        if res["rc"] == 0:
            self.assertNotIn("fired", res["counts"], what)
            self.check_ok(sc, res, what)
            return 0
        self.assertEqual(res["rc"], CRASH_EXIT, "%s: %r" % (what, res["err"]))
        db = res["db"]
        if not os.path.exists(db):
            self.assertTrue(sc.new_db, "%s: database gone" % what)
            return 1
        self.assertEqual(integrity(db), "ok", what)
        sig = signature(db)
        self.assertIn(sig, (sc.orig_sig, sc.want_sig),
                      "%s: neither before nor after" % what)
        r = sc.run(db, ["runs"], {})
        self.assertEqual(r.returncode, 0, "%s: after: %s" % (what, r.stderr))
        return 1


add_scenario_tests(CrashLoop, [(None, None)] + [
    ("_tear%d" % t, {"PROFAN_FAULT_TEAR": str(t)}) for t in (1, 2, 3)])


if __name__ == "__main__":
    unittest.main()
