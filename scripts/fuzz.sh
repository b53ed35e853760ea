#!/usr/bin/env bash
# scripts/fuzz.sh [--ci] [SECONDS] — build the libFuzzer harnesses (fuzz/)
# in build-fuzz with clang and run each for SECONDS, one after the other.
# Prints, per harness, the executions and libFuzzer's final coverage
# ("cov:" edges and "ft:" features of the last stats line).
#
#   default  SECONDS=60; corpus build-fuzz/corpus/HARNESS (kept between
#            runs) started from the committed fuzz/corpus/HARNESS and the
#            rich seeds fuzz/seeds.sh makes (uses ../shared/fixtures).
#   --ci     SECONDS=20 unless given; -seed=1; a fresh copy of the
#            committed fuzz/corpus/HARNESS only (no shared fixtures), so a
#            run is repeatable.  Before fuzzing, every input kept in
#            fuzz/regress/HARNESS/ is replayed.  A crash input found is
#            copied to fuzz/regress/HARNESS/ (fix the bug, commit it).
#
# Exits non-zero when a harness crashed, leaked, timed out or ran out of
# memory (the input is left in build-fuzz/crashes/HARNESS/, the log in
# build-fuzz/logs/HARNESS.log).
set -u
CI=0
if [ "${1:-}" = "--ci" ]; then CI=1; shift; fi
if [ $CI = 1 ]; then SECS=${1:-20}; else SECS=${1:-60}; fi
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# every fuzz/fuzz_NAME.c is a harness (CMakeLists.txt builds them the same
# way)
HARNESSES=$(cd "$ROOT/fuzz" && ls fuzz_*.c | sed 's/^fuzz_//; s/\.c$//' \
            | tr '\n' ' ')
B="$ROOT/build-fuzz"
cd "$ROOT" || exit 2
CC=clang cmake -S . -B "$B" -DPROFAN_FUZZ=ON -DPROFAN_TESTS=OFF \
  -DPROFAN_WERROR=ON >/dev/null \
  || { echo "fuzz.sh: cmake configure failed" >&2; exit 2; }
targets=""
for h in $HARNESSES; do targets="$targets fuzz_$h"; done
# shellcheck disable=SC2086  # one word per target
cmake --build "$B" -j"${PROFAN_JOBS:-2}" --target $targets >/dev/null \
  || { echo "fuzz.sh: build failed" >&2; exit 2; }
if [ $CI = 0 ]; then
  rm -rf "$B/seeds"
  fuzz/seeds.sh "$B/seeds" || { echo "fuzz.sh: seeds failed" >&2; exit 2; }
fi
mkdir -p "$B/logs"
status=0
printf '%-9s %10s %8s %6s %7s %s\n' harness execs exec/s cov ft result
for h in $HARNESSES; do
  log="$B/logs/$h.log"
  rm -rf "$B/crashes/$h"
  mkdir -p "$B/crashes/$h"
  # regressions first: each kept input must now run clean
  if [ -d "fuzz/regress/$h" ] && [ -n "$(ls -A "fuzz/regress/$h")" ]; then
    if ! "$B/fuzz_$h" -rss_limit_mb=2048 -timeout=25 fuzz/regress/"$h"/* \
        >"$B/logs/$h-regress.log" 2>&1; then
      printf '%-9s regression input fails again (see %s)\n' "$h" \
        "$B/logs/$h-regress.log"
      status=1
      continue
    fi
  fi
  if [ $CI = 1 ]; then
    corpus="$B/ci-corpus/$h"
    rm -rf "$corpus"
    mkdir -p "$corpus"
    cp fuzz/corpus/"$h"/* "$corpus/"
    set -- -seed=1 "$corpus"
  else
    corpus="$B/corpus/$h"
    # seeds.sh makes jscan/trace/pickle/nccl: the loader harnesses share
    # the pickle seeds (snapshot) and the JSON ones (fr: FR dumps + traces)
    case $h in snapshot) seeds=pickle ;; fr) seeds=jscan ;; ingest) seeds=trace ;;
      *) seeds=$h ;; esac
    mkdir -p "$corpus"
    set -- "$corpus" "fuzz/corpus/$h" "$B/seeds/$seeds"
  fi
  "$B/fuzz_$h" -max_total_time="$SECS" -rss_limit_mb=2048 -timeout=25 \
    -print_final_stats=1 -artifact_prefix="$B/crashes/$h/" "$@" >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  if [ "$rc" -ne 0 ]; then
    crash=$(ls "$B/crashes/$h" | head -1)
    res="CRASH (rc=$rc, see $log, $crash)"
    if [ $CI = 1 ] && [ -n "$crash" ]; then
      mkdir -p "fuzz/regress/$h"
      cp "$B/crashes/$h/$crash" "fuzz/regress/$h/"
      res="$res -> fuzz/regress/$h/$crash"
    fi
    status=1
  else
    res=ok
  fi
  printf '%-9s %10s %8s %6s %7s %s\n' "$h" "${execs:-?}" "${eps:-?}" \
    "${cov:-?}" "${ft:-?}" "$res"
done
exit $status
