#!/bin/sh
# scripts/coverage.sh — branch coverage (gcov -b) of the regression gate's
# decision, rank inference and the timestamp regimes, the figures in
# CONTRIBUTING.md "Tests".  Builds profan and the Check suites with --coverage in
# build-cov (gcc, -O0), runs the tests that reach that code (the history
# Check suite and test_gate for the gate; test_regimes, test_trace's
# TraceGenerations, the trace part of test_hostile_inputs and the fix-up
# failure of test_db_open for the rest)
# and prints, per piece of code, the branches and how many were taken at
# least once (scripts/branch-cov.py).
set -eu
cd "$(dirname "$0")/.."
CFLAGS="--coverage -O0" LDFLAGS="--coverage" cmake -S . -B build-cov \
  -DCMAKE_BUILD_TYPE=Debug -DPROFAN_TESTS=ON -DPROFAN_SANITIZE=OFF \
  -DPROFAN_BROWSER_TESTS=OFF >/dev/null
cmake --build build-cov -j"${PROFAN_JOBS:-2}" --target profan check_profan \
  >/dev/null
find build-cov -name '*.gcda' -delete
CK_RUN_SUITE=history CK_VERBOSITY=silent build-cov/check_profan
(cd tests/e2e && PROFAN_BIN=../../build-cov/profan python3 -m unittest \
  test_gate test_regimes test_trace.TraceGenerations \
  test_hostile_inputs.TraceInputs test_db_open.DbErrorInFixup 2>&1 | tail -1)
O=build-cov/CMakeFiles/profan_core.dir/src
for o in input/input ingest/ingest_trace trace/parse_trace history/history; do
  (cd "$O/${o%/*}" && gcov -b -o . "${o#*/}.c.o" >/dev/null 2>&1)
done
# line ranges of the code in question, found from the source
fn_range() {   # FILE FIRST-LINE-PATTERN: first line and its closing brace
  awk -v pat="$2" '$0 ~ pat && !s { s = NR } s && /^}/ { print s, NR; exit }' "$1"
}
B="python3 scripts/branch-cov.py"
# the gate's decision: from the shift of the samples to history_gate's end
a=$(grep -n '^static void sample_shift' src/history/history.c | cut -d: -f1)
# shellcheck disable=SC2046  # first and last line, split on purpose
set -- $(fn_range src/history/history.c '^void history_gate[(]')
$B "$O/history/history.c.gcov" "$a" "$2" "the gate's decision (history.c: sample_shift .. history_gate)"
# shellcheck disable=SC2046  # first and last line, split on purpose
set -- $(fn_range src/input/input.c '^int64_t input_rank_from_name')
$B "$O/input/input.c.gcov" "$1" "$2" "rank from the file name (input_rank_from_name)"
# shellcheck disable=SC2046  # first and last line, split on purpose
set -- $(fn_range src/ingest/ingest_trace.c '^static int64_t job_rank')
$B "$O/ingest/ingest_trace.c.gcov" "$1" "$2" "a trace's rank (job_rank)"
a=$(grep -n 'int64_t rank = job_rank(j);' src/ingest/ingest_trace.c | cut -d: -f1)
$B "$O/ingest/ingest_trace.c.gcov" "$a" "$((a + 10))" "rank source and late rank/base fix-up (finish_trace_file)"
a=$(grep -n 'nJob>1 && !j->info.hasRank' src/ingest/ingest_trace.c | cut -d: -f1)
$B "$O/ingest/ingest_trace.c.gcov" "$a" "$a" "rank-less trace in a run of several (writer_file_done)"
# shellcheck disable=SC2046  # first and last line, split on purpose
set -- $(fn_range src/ingest/ingest_trace.c '^static void note_mixed_clocks')
$B "$O/ingest/ingest_trace.c.gcov" "$1" "$2" "mixed clocks note (note_mixed_clocks)"
a=$(grep -n 'case E_TS: {' src/trace/parse_trace.c | cut -d: -f1)
$B "$O/trace/parse_trace.c.gcov" "$a" "$((a + 9))" "ts: fractions and largest |ts| (parse_trace.c)"
a=$(grep -n 'Time regime: relative to' src/trace/parse_trace.c | cut -d: -f1)
$B "$O/trace/parse_trace.c.gcov" "$a" "$((a + 8))" "time regime (parse_trace.c)"
