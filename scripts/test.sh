#!/bin/sh
# test.sh — the README's second command: install what is missing, then
# build and run the whole test suite twice: with gcc, and with clang under
# AddressSanitizer + UndefinedBehaviorSanitizer.  -Wall -Wextra -Werror in
# both.  Then the short fuzzing and fault-injection loops.  Exits non-zero
# on the first failure.
set -eu
cd "$(dirname "$0")/.."
# Browser tests (headless Chromium on the HTML reports) when asked for
# with PROFAN_BROWSER_TESTS=1, and always under CI=true; gcc build only.
BROWSER=OFF
if [ "${PROFAN_BROWSER_TESTS:-}" = 1 ] || [ "${CI:-}" = true ]; then
  BROWSER=ON
fi
# clang for the sanitizer build; valgrind, cppcheck and the libFuzzer
# runtime for the reliability steps
EXTRA="clang valgrind cppcheck libclang-rt-14-dev"
[ "$BROWSER" = ON ] && EXTRA="$EXTRA chromium"
PROFAN_SETUP_EXTRA="$EXTRA" sh scripts/setup.sh

echo "== gcc build and tests"
CC=gcc cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPROFAN_TESTS=ON \
  -DPROFAN_SANITIZE=OFF -DPROFAN_BROWSER_TESTS="$BROWSER" >/dev/null
cmake --build build -j"$(nproc)"
(cd build && ctest --output-on-failure --no-tests=error)

echo "== cppcheck and valgrind memcheck (scripts/analyze.sh)"
sh scripts/analyze.sh build

echo "== clang + ASan/UBSan build and tests"
CC=clang cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DPROFAN_TESTS=ON \
  -DPROFAN_SANITIZE=ON -DPROFAN_BROWSER_TESTS=OFF >/dev/null
cmake --build build-asan -j"$(nproc)"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure \
  --no-tests=error)

echo "== libFuzzer harnesses, ${PROFAN_FUZZ_SECONDS:-10} s each (scripts/fuzz.sh --ci)"
bash scripts/fuzz.sh --ci "${PROFAN_FUZZ_SECONDS:-10}"

echo "== fault injection, short loops (scripts/fault.sh --short)"
sh scripts/fault.sh --short
