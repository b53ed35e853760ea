#!/bin/sh
# test.sh — the README's second command (and CI's, through .ci/run with
# CI=true): install what is missing, then build and run the whole test
# suite twice: with gcc, and with clang under AddressSanitizer +
# UndefinedBehaviorSanitizer (-Wall -Wextra -Werror in both); then the
# analysis steps (cppcheck, valgrind), the libFuzzer harnesses and the
# short fault-injection loops (scripts/fault.sh --short).
#
# Every suite runs even when an earlier one failed.  Each prints one
# summary line "SUITE: N passed, N failed[, ...]" (counts parsed from the
# Check, unittest and run_all.py outputs; a step with no count of its own,
# such as a build or analyze.sh, counts as 1), and the script ends with
# exactly one line "N passed, N failed" totalled over all suites; it exits
# 1 when anything failed.  Full outputs: build*/Testing/Temporary/
# LastTest.log (ctest) and build-logs/*.log.
#
# To add a step: `step NAME COMMAND...` (pass/fail, counts 1) or a parser
# like ctest_suites below that calls `count NAME PASSED FAILED [NOTE]`.
set -u
cd "$(dirname "$0")/.." || exit 2
# Browser tests (headless Chromium on the HTML reports) when asked for
# with PROFAN_BROWSER_TESTS=1, and always under CI=true; gcc build only.
BROWSER=OFF
if [ "${PROFAN_BROWSER_TESTS:-}" = 1 ] || [ "${CI:-}" = true ]; then
  BROWSER=ON
fi
# clang for the sanitizer build; valgrind, cppcheck and the libFuzzer
# runtime for the reliability steps; setpriv/unshare (util-linux) and
# chattr (e2fsprogs) for the permission and full-filesystem tests;
# PyTorch (CPU) for the tests that run python/profan_torch.py and
# torch.distributed in the loop (tests/e2e/test_torch.py; profan itself
# does not need it)
EXTRA="clang valgrind cppcheck libclang-rt-14-dev util-linux e2fsprogs zsh \
python3-torch"
[ "$BROWSER" = ON ] && EXTRA="$EXTRA chromium"
PROFAN_SETUP_EXTRA="$EXTRA" sh scripts/setup.sh || exit 1

# The e2e modules run in parallel, one process per module (run_all.py -j),
# as many as there are cores unless PROFAN_E2E_JOBS says otherwise.
PROFAN_E2E_JOBS=${PROFAN_E2E_JOBS:-$(nproc)}
export PROFAN_E2E_JOBS

L=build-logs
mkdir -p "$L"
: > "$L/summary.txt"
TOTAL_PASS=0
TOTAL_FAIL=0

# count NAME PASSED FAILED [NOTE]: one summary line, added to the totals
count() {
  TOTAL_PASS=$((TOTAL_PASS + $2))
  TOTAL_FAIL=$((TOTAL_FAIL + $3))
  line="$1: $2 passed, $3 failed${4:+, $4}"
  echo "$line" | tee -a "$L/summary.txt"
}

# step NAME COMMAND...: a pass/fail step; its output goes to the console
# and to build-logs/NAME.log
step() {
  name=$1; shift
  log="$L/$(echo "$name" | tr ' /' '__').log"
  if { "$@"; echo $? > "$log.rc"; } 2>&1 | tee "$log"; [ "$(cat "$log.rc")" = 0 ]
  then count "$name" 1 0
  else count "$name" 0 1 "see $log"
  fi
}

# The output of ctest test NAME in build dir B (from LastTest.log).
ctest_output() {
  awk -v t="$2" '
    /^[0-9]+\/[0-9]+ Testing: / { on = ($3 == t); next }
    /^[0-9]+\/[0-9]+ Test: / { on = ($3 == t); next }
    on' "$1/Testing/Temporary/LastTest.log" 2>/dev/null
}

# True when ctest recorded test NAME of build B as passed.
ctest_passed() {
  awk -v t="$2" '
    /^[0-9]+\/[0-9]+ (Testing|Test): / { on = ($3 == t) }
    on && /^Test Passed\./ { ok = 1 }
    END { exit !ok }' "$1/Testing/Temporary/LastTest.log" 2>/dev/null
}

# Summary lines for the ctest tests of build B, prefixed with LABEL.
ctest_suites() {
  b=$1; label=$2
  for t in unit e2e pngstat browser; do
    out=$(ctest_output "$b" "$t")
    if [ -z "$out" ]; then
      [ "$t" = browser ] && continue          # not configured
      count "$label $t" 0 1 "did not run"
      continue
    fi
    ok=0; ctest_passed "$b" "$t" && ok=1
    case $t in
      unit)    # Check: "NN%: Checks: N, Failures: F, Errors: E"
        # shellcheck disable=SC2046  # the three numbers, split on purpose
        set -- $(echo "$out" | sed -n \
          's/^[0-9]*%: Checks: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\).*/\1 \2 \3/p' \
          | tail -1)
        skips=$(echo "$out" | grep -c 'SKIP: ')
        note=""
        [ "$skips" -gt 0 ] && note="$skips checks SKIPPED their real fixtures (../shared missing)"
        if [ $# = 3 ]; then p=$(($1 - $2 - $3)); f=$(($2 + $3))
        else p=0; f=0; fi ;;
      e2e)     # run_all.py: "e2e: N passed, N failed, N skipped"
        # shellcheck disable=SC2046
        set -- $(echo "$out" | sed -n \
          's/^e2e: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' \
          | tail -1)
        note=""
        if [ $# = 3 ]; then p=$1; f=$2
          [ "$3" -gt 0 ] && note="$3 SKIPPED (see the e2e: SKIP lines in the log)"
        else p=0; f=0; fi ;;
      pngstat) # unittest: "Ran N tests" and "FAILED (failures=F, errors=E)"
        n=$(echo "$out" | sed -n 's/^Ran \([0-9]*\) tests\{0,1\} .*/\1/p' | tail -1)
        f=$(echo "$out" | sed -n 's/^FAILED (\(.*\))$/\1/p' | tr -c '0-9\n' ' ' \
            | awk '{s=0; for(i=1;i<=NF;i++) s+=$i; print s}')
        note=""
        p=$(( ${n:-0} - ${f:-0} )); f=${f:-0} ;;
      browser) # "browser: N pages, M problems"
        # shellcheck disable=SC2046
        set -- $(echo "$out" | sed -n \
          's/^browser: \([0-9]*\) pages, \([0-9]*\) problems.*/\1 \2/p' | tail -1)
        note=""
        if [ $# = 2 ]; then p=$(($1 - $2)); f=$2; else p=0; f=0; fi ;;
    esac
    # a crash, a timeout or an unparsed output still fails the suite
    if [ $ok = 0 ] && [ "$f" = 0 ]; then f=1; note="${note:+$note, }ctest says failed"; fi
    count "$label $t" "$p" "$f" "$note"
  done
}

# build_and_test LABEL BUILD_DIR CC CMAKE_ARGS...: configure, build, ctest
build_and_test() {
  label=$1; b=$2; cc=$3; shift 3
  echo "== $label build and tests"
  rm -f "$b/Testing/Temporary/LastTest.log"
  if ! { CC=$cc cmake -S . -B "$b" -DPROFAN_TESTS=ON -DPROFAN_WERROR=ON "$@" >/dev/null \
         && cmake --build "$b" -j"$(nproc)"; }; then
    count "$label build" 0 1
    return
  fi
  count "$label build" 1 0
  (cd "$b" && ctest --output-on-failure --no-tests=error)
  ctest_suites "$b" "$label"
}

build_and_test gcc build gcc -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPROFAN_SANITIZE=OFF -DPROFAN_BROWSER_TESTS="$BROWSER"

step "style (scripts/style.sh)" sh scripts/style.sh

echo "== cppcheck and valgrind memcheck (scripts/analyze.sh)"
step "analyze (cppcheck, valgrind)" sh scripts/analyze.sh build

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
build_and_test "clang-asan" build-asan clang -DCMAKE_BUILD_TYPE=Debug \
  -DPROFAN_SANITIZE=ON -DPROFAN_BROWSER_TESTS=OFF
unset ASAN_OPTIONS UBSAN_OPTIONS

echo "== libFuzzer harnesses, ${PROFAN_FUZZ_SECONDS:-10} s each (scripts/fuzz.sh --ci)"
{ bash scripts/fuzz.sh --ci "${PROFAN_FUZZ_SECONDS:-10}"; echo $? > "$L/fuzz.rc"; } \
  2>&1 | tee "$L/fuzz.log"
# one line per harness after the header: "NAME EXECS EXEC/S COV FT ok", or
# the harness name and what went wrong
fp=$(awk '/^harness /{h=1; next} h && $NF=="ok"' "$L/fuzz.log" | wc -l)
ff=$(awk '/^harness /{h=1; next} h && $1 ~ /^[a-z]+$/ && $NF!="ok"' \
     "$L/fuzz.log" | wc -l)
# the script failed without naming a harness (configure or build)
[ "$(cat "$L/fuzz.rc")" != 0 ] && [ "$ff" = 0 ] && ff=1
count "fuzz (harnesses)" "$fp" "$ff"

echo "== fault injection, short loops (scripts/fault.sh --short)"
step "fault injection (short loops)" sh scripts/fault.sh --short

echo "== summary"
cat "$L/summary.txt"
echo "$TOTAL_PASS passed, $TOTAL_FAIL failed"
[ "$TOTAL_FAIL" = 0 ]
