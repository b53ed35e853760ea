#!/bin/sh
# test.sh — the README's second command: install what is missing, then
# build and run the whole test suite twice: with gcc, and with clang under
# AddressSanitizer + UndefinedBehaviorSanitizer.  -Wall -Wextra -Werror in
# both.  Exits non-zero on the first failure.
set -eu
cd "$(dirname "$0")/.."
PROFAN_SETUP_EXTRA="clang" sh scripts/setup.sh

echo "== gcc build and tests"
CC=gcc cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPROFAN_TESTS=ON \
  -DPROFAN_SANITIZE=OFF >/dev/null
cmake --build build -j"$(nproc)"
(cd build && ctest --output-on-failure --no-tests=error)

echo "== clang + ASan/UBSan build and tests"
CC=clang cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DPROFAN_TESTS=ON \
  -DPROFAN_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$(nproc)"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure \
  --no-tests=error)
