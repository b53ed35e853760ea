#!/bin/sh
# scripts/oracle-full.sh [BUILD_DIR] — the differential oracle
# (tests/e2e/test_oracle.py) in full: every trace fixture, the 3 MB one
# included, in every order (about 500 CPU-seconds, most of it on
# hta-mtia-rank0).  scripts/test.sh (and so CI) runs the module's seeded
# subset instead (PROFAN_ORACLE_SEED, default 34); run this one after
# changing the linker, the streaming totals, the merge or a specification
# in tests/oracle/.  BUILD_DIR defaults to build/ (a gcc build).
set -u
cd "$(dirname "$0")/.." || exit 2
B=${1:-build}
[ -x "$B/profan" ] || { echo "oracle-full.sh: build $B first" >&2; exit 2; }
PROFAN_ORACLE_FULL=1 exec python3 tests/e2e/run_all.py "$B/profan" -j 1 \
  -k test_oracle
