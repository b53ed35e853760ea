"""fault_malloc.py — the allocation-failure loop (issue #20).

For every scenario of fault_common.py (each input kind, the first ingest
into a new database, --replace, rm, tag, baseline) the command runs with
PROFAN_FAULT_MALLOC=N for N = 1, 2, ... past the number of allocations a
run without a fault makes (with PROFAN_FAULT_MODE=full every N up to
PROFAN_FAULT_MAX, evenly spaced beyond; about 24 evenly spaced ones
otherwise).  The Nth allocation fails, in profan's
allocator (util.c) or in SQLite's (both counted together).  A run whose
fault fired must either fail with exit 1 and exactly one line containing
"out of memory", no sanitizer report, and the database files as before
(nothing at all for a new database), or succeed (SQLite absorbed the
failure) with the same tables, runs, tags and baselines as the run without
a fault.
"""
import unittest

from fault_common import FaultLoop, add_scenario_tests


class MallocLoop(FaultLoop):
    VAR = "PROFAN_FAULT_MALLOC"
    COUNT = "malloc"

    def judge(self, sc, res, what):
        fired = "fired" in res["counts"]
        if res["rc"] == 0:
            self.check_ok(sc, res, what)
            return 0
        self.assertTrue(fired, "%s: failed without a fault: %r"
                        % (what, res["err"]))
        self.check_failed(sc, res, what)
        self.assertIn("out of memory", res["err"], what)
        return 1


add_scenario_tests(MallocLoop)


if __name__ == "__main__":
    unittest.main()
