#!/usr/bin/env python3
"""run_all.py — runs every tests/e2e/test_*.py module against a profan binary.

usage: run_all.py [PROFAN_BINARY] [-k PATTERN]

Prints unittest's report, then every skip with its reason, then a closing
line "e2e: N passed, N failed, N skipped" (scripts/test.sh parses it).

A run fails (exit 1) on any failure or error, on an unexpected success of
an @expectedFailure test, when nothing ran, and under CI=true also on a
test kept as an expected failure (a known bug is a red run in CI) and on
any skip the test did not declare with common.env_unable() (a fixture
missing, a fuzz/regress folder empty ... must not turn green silently).
"""
import os
import sys
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
    result = unittest.TextTestRunner(verbosity=1).run(suite)
    return summarize(result, ci, common.ENV_UNABLE)


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
