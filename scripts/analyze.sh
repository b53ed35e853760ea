#!/bin/sh
# scripts/analyze.sh [BUILD_DIR] — the analysis steps of the test suite
# (called by scripts/test.sh after the gcc build; BUILD_DIR defaults to
# build/, a gcc RelWithDebInfo build with PROFAN_TESTS=ON):
#   1. cppcheck --enable=warning,performance,portability on src/ and fuzz/,
#      with scripts/cppcheck.cfg (cli_usage_error does not return) and the
#      justified suppressions in scripts/cppcheck-suppressions.txt;
#   2. valgrind memcheck on the unit suite (CK_FORK=no, so the tests run
#      in the one process valgrind watches), one process per Check suite,
#      as many at once as there are cores:
#      every suite of tests/*.c, a new one included, but those named in
#      VALGRIND_SKIP_SUITES (default: snapshot spans html rules, 3.7 of
#      the suite's 6 native CPU-seconds, so about 60 % of valgrind's time:
#      large synthetic inputs through code that step 3 runs under
#      memcheck anyway: a snapshot ingest, the sorts of every ingest, the
#      rules of `report`, the HTML of `report --html`; all four run under
#      ASan+UBSan in scripts/test.sh); and in the suites it runs, the
#      checks tagged "large" (tcase_set_tags; CK_EXCLUDE_TAGS=large):
#      link's 400,000-row hold test, 1 of its 1.3 native CPU-seconds and
#      37 of its 57 under valgrind, which the gcc, ASan+UBSan and TSan unit
#      suites run;
#   3. valgrind memcheck on end-to-end commands: ingest of a trace
#      directory with an NCCL log, of a memory snapshot, of a
#      flight-recorder directory, then query, report (text and HTML),
#      diff, trend, rm.
# Any memcheck error or definite/indirect leak fails the step (valgrind's
# exit status 99, so that profan's own exit 1 stays distinguishable).
# Prints the time of each step.  Exits non-zero on the first failure.
set -eu
cd "$(dirname "$0")/.."
B=${1:-build}
P="$B/profan"
[ -x "$P" ] && [ -x "$B/check_profan" ] || {
  echo "analyze.sh: build $B first (PROFAN_TESTS=ON)" >&2; exit 2; }
for t in cppcheck valgrind python3; do
  command -v $t >/dev/null || { echo "analyze.sh: $t is missing" >&2; exit 2; }
done
now() { date +%s; }

t0=$(now)
echo "== cppcheck"
cppcheck --enable=warning,performance,portability --std=c11 -q -j2 -I src \
  --library=scripts/cppcheck.cfg \
  --suppressions-list=scripts/cppcheck-suppressions.txt --inline-suppr \
  --error-exitcode=1 --template='{file}:{line}: {severity}: {id}: {message}' \
  src/*/*.c fuzz/*.c
echo "cppcheck: clean ($(( $(now) - t0 )) s)"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
VG="valgrind -q --error-exitcode=99 --leak-check=full \
  --errors-for-leak-kinds=definite,indirect \
  --show-leak-kinds=definite,indirect"

t0=$(now)
SKIP=${VALGRIND_SKIP_SUITES-snapshot spans html rules}
echo "== valgrind: unit suite (every Check suite but: $SKIP; $(nproc) at a time)"
SUITES=""
for s in $(sed -n 's/.*suite_create("\([^"]*\)").*/\1/p' tests/*.c | sort -u); do
  case " $SKIP " in *" $s "*) continue ;; esac
  SUITES="$SUITES $s"
done
# one valgrind per suite, as many at once as there are cores (each is one
# single-threaded process); each writes TMP/SUITE.out and TMP/SUITE.rc
export VG B TMP
# shellcheck disable=SC2016  # expanded by the inner sh
printf '%s\n' $SUITES | xargs -P "$(nproc)" -I{} sh -c '
  t1=$(date +%s)
  CK_RUN_SUITE={} CK_EXCLUDE_TAGS=large CK_FORK=no $VG "$B/check_profan" \
    >"$TMP/{}.out" 2>&1
  echo $? >"$TMP/{}.rc"
  echo $(( $(date +%s) - t1 )) >"$TMP/{}.s"'
for s in $SUITES; do
  [ "$(cat "$TMP/$s.rc" 2>/dev/null)" = 0 ] || {
    echo "analyze.sh: valgrind: unit suite '$s' failed:" >&2
    cat "$TMP/$s.out" >&2; exit 1; }
  # a suite name Check does not know runs nothing and exits 0
  grep -q "Checks: [1-9]" "$TMP/$s.out" || {
    echo "analyze.sh: valgrind: unit suite '$s' ran no check" >&2; exit 1; }
  echo "valgrind unit $s: $(cat "$TMP/$s.s") s, $(sed -n 's/.*Checks: \([0-9]*\).*/\1/p' "$TMP/$s.out") checks"
done
echo "valgrind unit: clean ($(( $(now) - t0 )) s)"

t0=$(now)
echo "== valgrind: end-to-end commands"
DB="$TMP/vg.db"
mkdir "$TMP/run"
cp fixtures/sample-run/*.json.gz fixtures/nccl/p2p-fp8-2.24.log "$TMP/run/"
python3 fixtures/pickle/gen.py "$TMP/pk"
# vg NAME ARGS...: one profan command under memcheck; its exit status must
# be 0 (a memcheck finding gives 99)
vg() {
  what=$1; shift
  if ! $VG "$P" --db "$DB" "$@" >"$TMP/out" 2>"$TMP/err"; then
    echo "analyze.sh: valgrind: '$what' failed:" >&2
    cat "$TMP/err" >&2
    exit 1
  fi
}
vg "ingest traces + NCCL log" ingest --quiet --threads 2 --name a "$TMP/run"
vg "ingest snapshot" ingest --quiet --name snap "$TMP/pk/ring-buffer.pickle"
vg "ingest flight recorder" ingest --quiet --name fr fixtures/flight_recorder/clean
vg "ingest flight recorder JSON" ingest --quiet --name frj fixtures/flight_recorder/clean_json
vg "ingest sample again" ingest --quiet --name b fixtures/sample-run/host_4000.1767189312000000000.pt.trace.json.gz
vg "query" query top-kernels --run a
vg "query memory" query memory-timeline --run snap
vg "report" report a
vg "report --html" report a --html "$TMP/a.html"
vg "diff" diff a b
vg "trend" trend gpu_ms
vg "runs" runs
vg "rm" rm snap
# a refused input goes through the error paths (exit 6, no leak)
printf '{"traceEvents":[{"ph":"X"' > "$TMP/cut.json"
set +e
$VG "$P" --db "$DB" ingest --quiet "$TMP/cut.json" >/dev/null 2>"$TMP/err"
rc=$?
set -e
[ $rc -eq 6 ] || { echo "analyze.sh: valgrind: refused ingest exit $rc" >&2;
                   cat "$TMP/err" >&2; exit 1; }
echo "valgrind e2e: clean ($(( $(now) - t0 )) s)"
