#!/bin/sh
# scripts/tsan.sh [build|unit|e2e] — ThreadSanitizer over the code that
# runs threads: an ingest of several files starts parser threads that hand
# batches of events to the writer thread (src/ingest/ingest_trace.c).
#
#   build  configure and build build-tsan (clang, -DPROFAN_TSAN=ON,
#          -Werror, Debug)
#   unit   the unit suite on it (Check, CK_FORK=yes)
#   e2e    the e2e modules of multi-file ingests on it (TSAN_MODULES,
#          default: test_threads, the thread counts, refused threads and
#          a bad file among many; test_ingest_order, a run's files in
#          every order; test_merge_ranks, ranks ingested apart)
#
# With no argument: all three.  A data race (or any other report) ends the
# process with exit 66 at once (halt_on_error), so the test that ran it
# fails.  scripts/test.sh runs the three in its slow lane.
set -u
cd "$(dirname "$0")/.." || exit 2
B=build-tsan
TSAN_MODULES=${TSAN_MODULES:-test_threads test_ingest_order test_merge_ranks}
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1"
what=${1:-all}
case $what in
  all|build|unit|e2e) ;;
  *) echo "usage: scripts/tsan.sh [build|unit|e2e]" >&2; exit 2 ;;
esac
if [ "$what" = all ] || [ "$what" = build ]; then
  echo "== tsan build ($B)"
  if ! { CC=clang cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Debug -DPROFAN_TSAN=ON \
         -DPROFAN_SANITIZE=OFF -DPROFAN_WERROR=ON -DPROFAN_TESTS=ON \
         -DPROFAN_BROWSER_TESTS=OFF >/dev/null \
         && cmake --build "$B" -j"$(nproc)"; }; then
    echo "tsan.sh: build failed" >&2; exit 2
  fi
fi
rc=0
if [ "$what" = all ] || [ "$what" = unit ]; then
  echo "== tsan unit"
  CK_FORK=yes "$B/check_profan" || rc=1
fi
if [ "$what" = all ] || [ "$what" = e2e ]; then
  echo "== tsan e2e ($TSAN_MODULES)"
  set --
  for m in $TSAN_MODULES; do set -- "$@" -k "$m"; done
  python3 tests/e2e/run_all.py "$B/profan" "$@" || rc=1
fi
exit $rc
