#!/usr/bin/env python3
"""branch-cov.py GCOV_FILE FROM_LINE TO_LINE [LABEL]

Branch coverage of a line range of one gcov -b annotated file (FILE.gcov):
prints "LABEL: B branches, T taken at least once (P %), E executed"; the
untaken ones are listed with their line.  Used for the README's Tests
section (rank inference and timestamp regimes); see scripts/coverage.sh.
"""
import re
import sys


def main(argv):
    path, lo, hi = argv[1], int(argv[2]), int(argv[3])
    label = argv[4] if len(argv) > 4 else "%s:%d-%d" % (path, lo, hi)
    line = 0
    total = taken = executed = 0
    missed = []
    with open(path) as f:
        for text in f:
            m = re.match(r"\s*[-#=0-9*]+:\s*(\d+):", text)
            if m:
                line = int(m.group(1))
                continue
            b = re.match(r"branch\s+(\d+)\s+(never executed|taken (\d+)%)", text)
            if b and lo <= line <= hi:
                total += 1
                if b.group(2) != "never executed":
                    executed += 1
                    if int(b.group(3)) > 0:
                        taken += 1
                        continue
                missed.append((line, b.group(1), b.group(2)))
    pct = 100.0 * taken / total if total else 100.0
    print("%s: %d branches, %d taken at least once (%.1f %%), %d executed"
          % (label, total, taken, pct, executed))
    for ln, n, what in missed:
        print("  line %d branch %s: %s" % (ln, n, what))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
