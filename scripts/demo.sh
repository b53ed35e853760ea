#!/bin/sh
# demo.sh — the README's first command: install what is missing, build,
# ingest the bundled sample run (fixtures/sample-run) into sample.db and
# print the top-kernels named query for it.
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPROFAN_TESTS=OFF >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
rm -f sample.db sample.db-wal sample.db-shm
./build/profan --db sample.db ingest --name sample fixtures/sample-run
./build/profan --db sample.db query top-kernels --run sample
