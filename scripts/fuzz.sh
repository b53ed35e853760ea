#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS] — build the libFuzzer harnesses (fuzz/) in
# build-fuzz with clang, make the seed corpora and run each harness for
# SECONDS (default 60), one after the other.  Prints, per harness, the
# executions and the coverage ("cov:" of libFuzzer's last stats line).
# Exits non-zero when a harness crashed (the input is left in
# build-fuzz/crashes/HARNESS/, the log in build-fuzz/logs/HARNESS.log).
set -u
SECS=${1:-60}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B="$ROOT/build-fuzz"
cd "$ROOT" || exit 2
CC=clang cmake -S . -B "$B" -DPROFAN_FUZZ=ON -DPROFAN_TESTS=OFF >/dev/null \
  || { echo "fuzz.sh: cmake configure failed" >&2; exit 2; }
cmake --build "$B" -j"$(nproc)" --target fuzz_jscan fuzz_trace fuzz_pickle \
  fuzz_nccl >/dev/null || { echo "fuzz.sh: build failed" >&2; exit 2; }
rm -rf "$B/seeds"
fuzz/seeds.sh "$B/seeds" || { echo "fuzz.sh: seeds failed" >&2; exit 2; }
mkdir -p "$B/logs"
status=0
printf '%-7s %10s %8s %8s %s\n' harness execs exec/s cov result
for h in jscan trace pickle nccl; do
  mkdir -p "$B/corpus/$h" "$B/crashes/$h"
  log="$B/logs/$h.log"
  "$B/fuzz_$h" -max_total_time="$SECS" -rss_limit_mb=2048 -timeout=25 \
    -print_final_stats=1 -artifact_prefix="$B/crashes/$h/" \
    "$B/corpus/$h" "$B/seeds/$h" >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  if [ "$rc" -ne 0 ]; then
    res="CRASH (rc=$rc, see $log, $(ls "$B/crashes/$h" | head -1))"
    status=1
  else
    res=ok
  fi
  printf '%-7s %10s %8s %8s %s\n' "$h" "${execs:-?}" "${eps:-?}" "${cov:-?}" "$res"
done
exit $status
