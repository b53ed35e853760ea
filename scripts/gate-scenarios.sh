#!/bin/sh
# gate-scenarios.sh — the whole scenario matrix of `profan check`
# (tests/e2e/gate_scenarios.py): traces built from the real
# hta-diff-control trace, slowdown 0-30 % x step noise 0-5 % x 3-20 steps,
# 20 seeds, each verdict with and without unrelated runs in the database.
# Prints the detection table (regression / inconclusive / ok per cell)
# that bench/README.md shows.  Takes tens of minutes; CI runs the short grid of
# tests/e2e/test_gate.py instead.
#   usage: scripts/gate-scenarios.sh [BUILD_DIR] [extra gate_scenarios.py options]
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
[ $# -gt 0 ] && shift
exec python3 tests/e2e/gate_scenarios.py --profan "$build/profan" "$@"
