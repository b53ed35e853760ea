#!/usr/bin/env python3
"""run_all.py — runs every tests/e2e/test_*.py module against a profan binary.

usage: run_all.py [PROFAN_BINARY] [-k PATTERN]

Prints unittest's report, the wall time of each module (slowest first,
one line each: "e2e: time 123.4 s test_x (N tests)") and of the ten
slowest tests, then every skip with its reason, then a closing line
"e2e: N passed, N failed, N skipped" (scripts/test.sh parses it).

A run fails (exit 1) on any failure or error, on an unexpected success of
an @expectedFailure test, when nothing ran, and under CI=true also on a
test kept as an expected failure (a known bug is a red run in CI) and on
any skip the test did not declare with common.env_unable() (a fixture
missing, a fuzz/regress folder empty ... must not turn green silently).
"""
import collections
import os
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    args = sys.argv[1:]
    if args and not args[0].startswith("-"):
        os.environ["PROFAN_BIN"] = os.path.abspath(args.pop(0))
    pattern = None
    if len(args) >= 2 and args[0] == "-k":
        pattern = args[1]
    sys.path.insert(0, HERE)
    import common                     # after PROFAN_BIN is set
    ci = os.environ.get("CI") == "true"
    loader = unittest.TestLoader()
    if pattern:
        loader.testNamePatterns = ["*%s*" % pattern]
    suite = loader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
    runner = unittest.TextTestRunner(verbosity=1, resultclass=TimedResult)
    result = runner.run(suite)
    print_times(result)
    return summarize(result, ci, common.ENV_UNABLE)


class TimedResult(unittest.TextTestResult):
    """Records each test's wall time (setUp and tearDown included);
    setUpClass/setUpModule time counts toward the module's total, which is
    measured from the first test of the module to the last one's end."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.test_times = []                      # (seconds, test id)
        self.module_span = {}                     # module: [first, last]
        self._t0 = None
        self._prev_end = None

    def startTest(self, test):
        now = time.monotonic()
        mod = type(test).__module__
        span = self.module_span.setdefault(mod, [now, now, 0])
        # class/module fixtures ran between the last test and this one
        if self._prev_end is not None and span[2] == 0:
            span[0] = self._prev_end
        self._t0 = now
        super().startTest(test)

    def stopTest(self, test):
        super().stopTest(test)
        now = time.monotonic()
        mod = type(test).__module__
        self.test_times.append((now - self._t0, test.id()))
        span = self.module_span[mod]
        span[1] = now
        span[2] += 1
        self._prev_end = now


def print_times(result):
    """One line per module, slowest first, then the ten slowest tests."""
    times = getattr(result, "module_span", None)
    if not times:
        return
    total = sum(b - a for a, b, _ in times.values())
    for mod, (a, b, n) in sorted(times.items(), key=lambda kv:
                                 kv[1][0] - kv[1][1]):
        print("e2e: time %7.1f s %s (%d test%s)" % (b - a, mod, n,
                                                   "" if n == 1 else "s"))
    print("e2e: time %7.1f s in all" % total)
    for sec, tid in sorted(result.test_times, reverse=True)[:10]:
        print("e2e: slowest test %6.1f s %s" % (sec, tid))


def summarize(result, ci, unable_prefix):
    """Print the skips and the closing line; return the exit status."""
    failed = len(result.failures) + len(result.errors)
    unexpected = result.unexpectedSuccesses
    known = result.expectedFailures
    declared = [(t, why) for t, why in result.skipped
                if why.startswith(unable_prefix)]
    hidden = [(t, why) for t, why in result.skipped
              if not why.startswith(unable_prefix)]
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped - len(unexpected) - len(known)
    for t, why in declared:
        print("e2e: SKIP (declared) %s: %s" % (t.id(), why))
    for t, why in hidden:
        print("e2e: SKIP%s %s: %s" % (" (not allowed under CI=true)" if ci
                                      else "", t.id(), why))
    for t in unexpected:
        print("e2e: UNEXPECTED SUCCESS %s (drop its @expectedFailure)" % t.id())
    for t, _ in known:
        print("e2e: EXPECTED FAILURE %s (a known bug%s)"
              % (t.id(), ", not allowed under CI=true" if ci else ""))
    if hidden and not ci:
        print("e2e: WARNING: %d test%s skipped for want of fixtures or"
              " inputs; CI=true fails on these" % (len(hidden),
                                                   "" if len(hidden) == 1 else "s"))
    bad = failed + len(unexpected)
    if ci:
        bad += len(hidden) + len(known)
    print("e2e: %d passed, %d failed, %d skipped" % (passed, bad, skipped))
    return 0 if bad == 0 and result.testsRun > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
