#!/bin/sh
# gate-scenarios.sh — the whole scenario matrix of `profan check`
# (tests/e2e/gate_scenarios.py, the replay generator): every multi-step
# trace of ../shared/fixtures and fixtures/ replayed step by step with its
# own variation, slowdowns 0/2/5/10/20 % x step noise 0/2/5 % x modes
# uniform / one (a stall) / gpu (GPU kernels only), 10 seeds a cell, the
# first 2 also with unrelated runs in the database.  Prints the detection
# table (regression / inconclusive / ok per cell), the identical copy's
# verdicts, the targets of issue 30 and the families that are not
# monotonic in the slowdown.  Takes an hour or more on 2 cores; CI runs
# the short grid of tests/e2e/test_gate.py (ScenarioGrid) instead.
#   usage: scripts/gate-scenarios.sh [BUILD_DIR] [gate_scenarios.py options]
#   e.g.   nice scripts/gate-scenarios.sh build --seeds 10 --jsonl out.jsonl
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
[ $# -gt 0 ] && shift
exec python3 tests/e2e/gate_scenarios.py --profan "$build/profan" "$@"
