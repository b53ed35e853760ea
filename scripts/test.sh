#!/bin/sh
# test.sh — the README's second command (and CI's, through .ci/run with
# CI=true): install what is missing, then run the tests in two lanes, each
# step and lane printing its wall time:
#
#   fast lane  gcc build (-Werror), unit suite, e2e suite (its modules in
#              parallel), pngstat (and the browser tests under CI=true),
#              style, docs check (manual page rendered by groff,
#              completions);
#   slow lane  clang AddressSanitizer + UBSan build (-Werror), unit and e2e
#              suites on it (the Python-heavy modules left out: see
#              ASAN_SKIP), cppcheck + valgrind on a representative subset
#              (scripts/analyze.sh), the libFuzzer
#              harnesses, the short fault-injection loops, ThreadSanitizer
#              over the unit suite and the multi-file ingests
#              (scripts/tsan.sh).
#
# The budget: the whole run under 30 minutes on 2 cores with the machine
# shared, about 2,600 CPU-seconds at most (bench/README.md "CI lanes" has
# the measured times, docs/reliability.md "CI lanes" the layout).  Long
# loops run a short seeded version here and in full in their own script:
# the differential oracle (test_oracle's subset; scripts/oracle-full.sh),
# the fault loops (scripts/fault.sh), fuzzing (scripts/fuzz.sh), the
# findings scenarios (tests/e2e/findings_scenarios.py).  Every e2e run
# prints each module's CPU seconds, most first, and how much of it was the
# test's own Python ("own").  Timeouts
# are safety nets against a hang, sized for a sanitizer build on a loaded
# machine, never a speed limit.
#
# Every step runs even when an earlier one failed.  Each prints one summary
# line "SUITE: N passed, N failed[, NOTE], T s, cpu C s" (wall and CPU
# seconds: on a shared machine C / cores is what the step would take
# alone; scripts/ci_lib.sh parses the Check, unittest, run_all.py and
# fuzz.sh outputs; a step with no count of its own, such as a build or
# analyze.sh, counts as 1), and the script ends with exactly one line "N
# passed, N failed" totalled over all suites; it exits 1 when anything
# failed.  Full outputs: build-logs/*.log.
#
# PROFAN_LANES=fast runs the fast lane only (a quick check before a
# commit); the default, "fast slow", runs both.
#
# To add a step: `step NAME COMMAND...` (pass/fail, counts 1) or `suite
# NAME KIND COMMAND...` (KIND: check, e2e, unittest, browser, fuzz).
set -u
cd "$(dirname "$0")/.." || exit 2
# Browser tests (headless Chromium on the HTML reports) when asked for
# with PROFAN_BROWSER_TESTS=1, and always under CI=true; gcc build only.
BROWSER=OFF
if [ "${PROFAN_BROWSER_TESTS:-}" = 1 ] || [ "${CI:-}" = true ]; then
  BROWSER=ON
fi
# clang for the sanitizer builds; valgrind, cppcheck and the libFuzzer
# runtime for the reliability steps; setpriv/unshare/prlimit (util-linux)
# and chattr (e2fsprogs) for the permission, full-filesystem and thread
# tests; PyTorch (CPU) for the tests that run python/profan_torch.py and
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
JOBS=$(nproc)
LANES=${PROFAN_LANES:-fast slow}

# Safety nets (seconds): a suite past its timeout is killed and fails;
# each is below CI's hard 90-minute limit, so that a hang fails one suite
# with its name and the run still prints its totals.
UNIT_TIMEOUT=1200
E2E_TIMEOUT=2700
STEP_TIMEOUT=1800
# ... and each e2e module's (run_all.py -t): a hung module fails alone,
# named with its time and where it hung, and the suite goes on.  Above
# tests/e2e/common.py's 900 s for one profan command (so that a hung
# command fails its test first, with its arguments); the costliest module
# under ASan, test_hostile_inputs (156 CPU-s), took 1,111 s of wall time
# at load 13 on 2 cores (bench/README.md "CI lanes", 2026-11-29 272d7b5):
# 1,800 s leaves it 60 % more.
PROFAN_E2E_MODULE_TIMEOUT=${PROFAN_E2E_MODULE_TIMEOUT:-1800}
export PROFAN_E2E_MODULE_TIMEOUT

# The ASan e2e run: every module, a new one included, unless it is named
# here.  The rule for naming one: at least 2/3 of its CPU is its own
# Python (an oracle over the JSON, scenario making: run_all.py's "own"),
# it costs at least 10 CPU-seconds (below that, leaving it out saves
# nothing worth the coverage: test_comm_oracle, 2.6 s, 65 % own,
# stays; test_torch, 19.1 s, runs PyTorch in child processes, 2 % own,
# stays), and every C path it drives is driven under ASan by a module that
# does run (named after it).  They all run in the fast lane.  Measured on
# the gcc build, CPU seconds in all / own (2026-11-29, bench/README.md
# "CI lanes"):
#   test_oracle          spec oracle over every fixture and ordering: the
#                        CI subset 37 / 31 (the ingests: test_corpus,
#                        test_trace, test_ingest_order, test_export)
#   test_gate            gate scenario matrix, 22 at 3003bc8 (test_history,
#                        test_step_bound, test_history_server)
#   test_verdicts        straggler scenario matrix, 12 at 3003bc8
#                        (test_findings, test_report, test_comm)
#   test_findings_rates  findings scenario matrix, 12.1 / 10.9
#                        (test_findings, test_findings_corpus)
#   test_trace_oracle    sweeps over the JSON, 20.0 / 14.3 (test_trace,
#                        test_trace_queries, test_corpus)
ASAN_PYTHON_HEAVY="test_oracle test_gate test_verdicts test_findings_rates \
test_trace_oracle"
# Also left out of the ASan run: the corpus loops, which run C paths that
# other modules run under ASan, again over every fixture (every named
# query, every report) to check invariants of the numbers, which the gcc
# lane checks.  Measured under ASan (CPU / wall seconds, 2026-11-29, with
# two other sessions on the cores):
#   test_corpus          every named query and report over every fixture:
#                        200 / 402 (test_trace_queries, test_report,
#                        test_html, test_export, test_trace)
#   test_findings_corpus report on every fixture: 46 / 160 (test_findings,
#                        test_report, test_html)
ASAN_REPEATS="test_corpus test_findings_corpus"
ASAN_SKIP=""
for m in $ASAN_PYTHON_HEAVY $ASAN_REPEATS; do ASAN_SKIP="$ASAN_SKIP -x $m"; done

L=build-logs
# shellcheck source=scripts/ci_lib.sh
. scripts/ci_lib.sh
ci_init

# build LABEL BUILD_DIR CC CMAKE_ARGS...: configure and build (-Werror),
# output in build-logs/LABEL-build.log (its end shown on failure); false
# when it failed
build() {
  label=$1; b=$2; cc=$3; shift 3
  log="$L/$label-build.log"
  step_begin
  if { CC=$cc cmake -S . -B "$b" -DPROFAN_TESTS=ON -DPROFAN_WERROR=ON "$@" \
       && cmake --build "$b" -j"$JOBS"; } > "$log" 2>&1
  then count "$label build" 1 0
  else tail -40 "$log"; count "$label build" 0 1 "see $log"; return 1
  fi
}

# unit_and_e2e LABEL BUILD_DIR [RUN_ALL ARGS...]: the two suites of a build
unit_and_e2e() {
  label=$1; b=$2; shift 2
  suite "$label unit" check timeout -k 30 $UNIT_TIMEOUT \
    env CK_FORK=yes "$b/check_profan"
  # shellcheck disable=SC2068  # run_all.py's arguments, one word each
  suite "$label e2e" e2e timeout -k 30 $E2E_TIMEOUT \
    python3 tests/e2e/run_all.py "$b/profan" $@
}

case " $LANES " in *" fast "*)
  lane_begin fast
  if build gcc build gcc -DCMAKE_BUILD_TYPE=RelWithDebInfo \
       -DPROFAN_SANITIZE=OFF -DPROFAN_TSAN=OFF -DPROFAN_BROWSER_TESTS="$BROWSER"
  then
    # test_docs runs once, in the docs check below, not in the e2e too
    unit_and_e2e gcc build -x test_docs
    suite "gcc pngstat" unittest timeout -k 30 600 \
      python3 tests/browser/test_pngstat.py
    if [ "$BROWSER" = ON ]; then
      suite "gcc browser" browser timeout -k 30 1800 \
        python3 tests/browser/run_browser.py build/profan \
        --shots build/browser-shots
    fi
    # the manual page rendered (groff) and the completions, on their own
    # so that a docs failure reads as one
    suite "docs check" e2e timeout -k 30 600 \
      python3 tests/e2e/run_all.py build/profan -j 1 -k test_docs
  fi
  step "style (scripts/style.sh)" sh scripts/style.sh
  ;;
esac

case " $LANES " in *" slow "*)
  lane_begin slow
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  # -O1, as AddressSanitizer's authors advise for speed (asserts kept):
  # profan's share of the e2e CPU 1.5-1.9x lower than at -O0 (ingests of
  # a 1.7 MB trace and of the 8 dlrm ranks, bench/README.md "CI lanes")
  if build clang-asan build-asan clang -DCMAKE_BUILD_TYPE=Debug \
       -DCMAKE_C_FLAGS_DEBUG="-g -O1" \
       -DPROFAN_SANITIZE=ON -DPROFAN_TSAN=OFF -DPROFAN_BROWSER_TESTS=OFF
  then
    # shellcheck disable=SC2086  # -x MODULE pairs
    unit_and_e2e clang-asan build-asan $ASAN_SKIP
  fi
  unset ASAN_OPTIONS UBSAN_OPTIONS

  if [ -x build/profan ]; then
    step "analyze (cppcheck, valgrind)" timeout -k 30 $STEP_TIMEOUT \
      sh scripts/analyze.sh build
  else
    step_begin; count "analyze (cppcheck, valgrind)" 0 1 "no gcc build"
  fi

  suite "fuzz (harnesses, ${PROFAN_FUZZ_SECONDS:-10} s each)" fuzz \
    timeout -k 30 $STEP_TIMEOUT \
    bash scripts/fuzz.sh --ci "${PROFAN_FUZZ_SECONDS:-10}"

  step "fault injection (short loops)" timeout -k 30 $STEP_TIMEOUT \
    sh scripts/fault.sh --short

  # ThreadSanitizer: its own build (build-tsan), the unit suite and the
  # e2e modules of multi-file ingests (scripts/tsan.sh)
  if step "tsan build" sh scripts/tsan.sh build; then
    suite "tsan unit" check timeout -k 30 $UNIT_TIMEOUT sh scripts/tsan.sh unit
    suite "tsan e2e" e2e timeout -k 30 $E2E_TIMEOUT sh scripts/tsan.sh e2e
  fi
  ;;
esac

ci_finish
