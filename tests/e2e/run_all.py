#!/usr/bin/env python3
"""run_all.py — runs every tests/e2e/test_*.py module against a profan binary.

usage: run_all.py [PROFAN_BINARY] [-k PATTERN]
Prints unittest's report and a closing line "N passed, N failed, N skipped".
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
    loader = unittest.TestLoader()
    if pattern:
        loader.testNamePatterns = ["*%s*" % pattern]
    suite = loader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
    result = unittest.TextTestRunner(verbosity=1).run(suite)
    failed = len(result.failures) + len(result.errors)
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped
    print("e2e: %d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 0 if failed == 0 and result.testsRun > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
