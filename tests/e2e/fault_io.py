"""fault_io.py — the I/O-error loop (issue #20).

For every scenario of fault_common.py the command runs with
PROFAN_FAULT_IO=N for N = 1, 2, ... past the number of I/O operations a
run without a fault makes (with PROFAN_FAULT_MODE=full every N up to
PROFAN_FAULT_MAX, evenly spaced beyond; about 24 evenly spaced ones
otherwise).  The Nth operation fails: an open, delete,
access check, read, write, truncate, sync, file-size call, lock or
shared-memory map of SQLite's (through the "fault" VFS shim, with
SQLITE_IOERR_* or SQLITE_CANTOPEN), or a read of an input file (EIO).  A run
whose fault fired must fail with exit 1 and exactly one "profan: ..."
line, no sanitizer report, the database files as before (nothing for a new
database) — or succeed (SQLite retried or did not need the operation)
with the same tables, runs, tags and baselines as without a fault.  A
failed read while sniffing a file of a directory makes that file
"skipped" (documented behaviour): the run is then stored without it.  The
number of points of each kind tried is written to PROFAN_FAULT_REPORT.
"""
import unittest

from fault_common import FaultLoop, add_scenario_tests, integrity


class IoLoop(FaultLoop):
    VAR = "PROFAN_FAULT_IO"
    COUNT = "io"

    def judge(self, sc, res, what):
        if res["rc"] == 0 and res["counts"].get("fired") == "input" \
                and ": skipped: read error: Input/output error\n" in res["err"]:
            # a file of a directory that cannot be read is skipped and
            # named (README: Reliability); the rest is one whole run
            self.assertEqual(integrity(res["db"]), "ok", what)
            self.assertEqual([r[0] for r in res["sig"]["runs"]],
                             [r[0] for r in sc.want_sig["runs"]], what)
            self.assertLess(res["sig"]["run_file"],
                            sc.want_sig["run_file"], what)
            return 0
        if res["rc"] == 0:
            self.check_ok(sc, res, what)
            return 0
        self.assertIn("fired", res["counts"], "%s: failed without a fault: %r"
                      % (what, res["err"]))
        # an input file that cannot be read is a bad input file (6); the
        # database's I/O failing is a database error (7)
        self.check_failed(sc, res, what,
                          6 if res["counts"].get("fired") == "input" else 7)
        return 1


add_scenario_tests(IoLoop)


if __name__ == "__main__":
    unittest.main()
