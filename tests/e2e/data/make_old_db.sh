#!/bin/sh
# make_old_db.sh [COMMIT] — write tests/e2e/data/schema7-842c692.sqlite.gz,
# the committed "database made by an older profan" that
# tests/e2e/test_durability.py (Migration) upgrades in place.
#
# The database is made by the old program itself, not by replaying SQL:
# the source tree at COMMIT (default 842c692, the last commit at schema
# version 7, before schema/008-history.sql) is exported with `git archive`
# (no change to this checkout's git state), built with gcc into a
# temporary directory, and run on that commit's own fixtures: the two-rank
# sample run (traces), an NCCL log and a flight-recorder rank dump, as one
# run named "old-run", plus the sample run alone as "old-sample".  The
# file is gzip-compressed (16 KiB pages, mostly empty: ~1.5 MB raw,
# ~50 KB compressed).  Run from anywhere; needs git, cmake, gcc, the
# build dependencies of that commit and sqlite3.
set -eu
COMMIT=${1:-842c692}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
OUT="$HERE/schema7-$COMMIT.sqlite.gz"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
git -C "$ROOT" archive --format=tar "$COMMIT" | tar -x -C "$TMP"
CC=gcc cmake -S "$TMP" -B "$TMP/build" -DCMAKE_BUILD_TYPE=Release \
  -DPROFAN_TESTS=OFF >/dev/null
cmake --build "$TMP/build" -j2 --target profan >/dev/null
OLD="$TMP/build/profan"
DB="$TMP/old.db"
F="$TMP/fixtures"
"$OLD" --db "$DB" ingest --quiet --name old-sample "$F/sample-run"
mkdir "$TMP/run"
cp "$F"/sample-run/*.json.gz "$TMP/run/"
cp "$F/nccl/p2p-fp8-2.24.log" "$TMP/run/"
cp "$F/flight_recorder/clean/nccl_trace_rank_0" "$TMP/run/"
"$OLD" --db "$DB" ingest --quiet --name old-run "$TMP/run"
v=$(sqlite3 "$DB" "PRAGMA user_version")
echo "make_old_db.sh: $COMMIT made a schema-$v database:"
sqlite3 "$DB" "SELECT id, name, (SELECT count(*) FROM run_file f WHERE f.run_id = run.id) FROM run"
gzip -9 -n -c "$DB" > "$OUT"
ls -l "$OUT"
