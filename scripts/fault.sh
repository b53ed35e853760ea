#!/bin/sh
# fault.sh — the fault-injection loops of issue #20 (docs/reliability.md):
# failing allocations, I/O errors and power loss at every point of every
# writing command, on a build with the hooks (-DPROFAN_FAULT=ON).
#
#   scripts/fault.sh           full loops, gcc fault build (build-fault)
#   scripts/fault.sh --asan    full loops on the clang ASan+UBSan fault build
#                              (build-fault-asan; about 4x slower per run)
#   scripts/fault.sh --short   the short loops scripts/test.sh runs (ASan)
#
# Full: every injection point up to PROFAN_FAULT_MAX (default 6000) per
# scenario, evenly spaced points beyond; short: PROFAN_FAULT_POINTS
# (default 24) evenly spaced points per scenario for allocations and I/O,
# every sync for power loss.  PROFAN_FAULT_JOBS runs (default 2) at once.
# Prints one line per loop and scenario: points tried, total, failures
# (the fault made the command fail, as it must), time.
set -eu
cd "$(dirname "$0")/.."
MODE=full
ASAN=OFF
for a in "$@"; do
  case "$a" in
    --short) MODE=short; ASAN=ON ;;
    --asan) ASAN=ON ;;
    *) echo "usage: scripts/fault.sh [--short|--asan]" >&2; exit 2 ;;
  esac
done
if [ "$ASAN" = ON ]; then
  # -O0 (Debug), unlike scripts/test.sh's -O1 ASan build: the loops are
  # hundreds of short profan processes, mostly the sanitizers' start-up,
  # and -O1 costs more to compile than it saves (--short, build and loops:
  # 122 CPU-s at -O1 against 98 at -O0, bench/README.md "CI lanes")
  BUILD=build-fault-asan
  CC=clang cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Debug -DPROFAN_TESTS=OFF \
    -DPROFAN_FAULT=ON -DPROFAN_SANITIZE=ON -DPROFAN_WERROR=ON >/dev/null
else
  BUILD=build-fault
  CC=gcc cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DPROFAN_TESTS=OFF -DPROFAN_FAULT=ON -DPROFAN_SANITIZE=OFF -DPROFAN_WERROR=ON \
    >/dev/null
fi
cmake --build "$BUILD" -j"$(nproc)" >/dev/null
REPORT=$(mktemp)
trap 'rm -f "$REPORT"' EXIT
T0=$(date +%s)
rc=0
(cd tests/e2e && PROFAN_FAULT_BIN="$PWD/../../$BUILD/profan" \
  PROFAN_FAULT_MODE="$MODE" PROFAN_FAULT_REPORT="$REPORT" \
  ASAN_OPTIONS=detect_leaks=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  python3 -m unittest fault_malloc fault_io fault_crash) || rc=1
echo "== fault loops ($MODE, $BUILD): $(($(date +%s) - T0)) s"
sort "$REPORT"
awk '{ split($3, p, "="); split($5, f, "="); n[$1] += p[2]; fl[$1] += f[2] }
     END { for (k in n) printf "%s: %d points, %d failed cleanly\n", k, n[k], fl[k] }' "$REPORT"
exit $rc
