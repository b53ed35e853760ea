#!/usr/bin/env bash
# fuzz/make_corpus.sh — regenerate the small committed seed corpora in
# fuzz/corpus/HARNESS/ that the CI fuzz step (scripts/test.sh ->
# scripts/fuzz.sh --ci) starts from.  Only the project's own fixtures/ and
# inputs written here are used (never ../shared/fixtures); every file is
# kept small (traces cut to 8 KiB, NCCL logs in 20-line chunks) so the
# corpus stays well under 200 KiB.  The richer seeds for long runs are made
# at run time by fuzz/seeds.sh.
#   jscan     trace prefixes, flight-recorder JSON, escapes
#   trace     sample-run traces cut to 8 KiB, hand-made event shapes
#   pickle    fixtures/pickle/gen.py outputs (snapshots + hostile), FR pickles
#   snapshot  the same pickles (they run through the loaders here)
#   fr        flight-recorder JSON dumps
#   nccl      fixtures/nccl logs in 20-line chunks
#   ingest    one to three of the above joined by "\n%%\n" (fuzz_ingest.c
#             writes each part to a file of a run directory)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
C="$ROOT/fuzz/corpus"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
rm -rf "$C"
mkdir -p "$C/jscan" "$C/trace" "$C/pickle" "$C/snapshot" "$C/fr" "$C/nccl" \
  "$C/ingest"

# --- traces: the sample run cut to 8 KiB, plus hand-made shapes
for f in "$ROOT"/fixtures/sample-run/*.json.gz; do
  b=$(basename "$f" .pt.trace.json.gz)
  { gzip -dc "$f" || true; } | head -c 8192 > "$C/trace/$b.json"
done
cp "$ROOT"/fixtures/sample-run/host_4000.*.json.gz "$C/trace/gz-host_4000.json.gz"
printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1.5,"dur":2,"args":{"correlation":1,"grid":[1,2,3],"stream":7,"device":0}},{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":1,"args":{"correlation":1,"External id":3}},{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":5,"args":{"External id":3,"Input Dims":[[2,3],[3,4]],"Input type":["float","float"]}}],"distributedInfo":{"rank":0,"world_size":2},"deviceProperties":[{"id":0,"name":"H100"}]}' \
  > "$C/trace/tiny-linked.json"
printf '[{"ph":"X","cat":"Operator","name":"aten::mm","pid":1,"tid":"1","ts":10,"dur":5}]' \
  > "$C/trace/legacy-array.json"
# the legacy exporter's own shape (docs/formats.md section 1.10): no cat,
# pid "CPU functions", a step, nesting, a gloo range on another thread, an
# RPC tid, a "CUDA functions" range and its flow
printf '[{"name": "ProfilerStep#1", "ph": "X", "ts": 344, "dur": 1311, "tid": 1, "pid": "CPU functions", "args": {}}, {"name": "aten::linear", "ph": "X", "ts": 350, "dur": 40, "tid": 1, "pid": "CPU functions", "args": {}}, {"name": "aten::addmm", "ph": "X", "ts": 352, "dur": 30, "tid": 1, "pid": "CPU functions", "args": {}}, {"name": "gloo:all_reduce", "ph": "X", "ts": 400, "dur": 900, "tid": 2, "pid": "CPU functions", "args": {}}, {"name": "aten::add", "ph": "X", "ts": 500, "dur": 3, "tid": " node_id:1, thread_id:7 ", "pid": "CPU functions", "args": {}}, {"name": "aten::mm", "ph": "s", "ts": 352, "tid": 1, "pid": "CPU functions", "id": 0, "cat": "cpu_to_cuda", "args": {}}, {"name": "aten::mm", "ph": "X", "ts": 360, "dur": 20, "tid": 0, "pid": "CUDA functions", "args": {}}]' \
  > "$C/trace/legacy-exporter.json"
printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)","pid":0,"tid":7,"ts":3,"dur":9,"args":{"correlation":2,"Collective name":"allreduce","dtype":"Float","In msg nelems":1024,"Out msg nelems":1024,"Group size":2,"Process Group Ranks":"[0, 1]"}},{"ph":"i","s":"t","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0},{"ph":"f","id":2,"pid":0,"tid":7,"ts":3,"cat":"ac2g","name":"ac2g","bp":"e"}]}' \
  > "$C/trace/collective.json"
cp "$C"/trace/*.json "$C/jscan/"
printf '{"a":[1,-2.5e+3,true,false,null,"\\u00e9\\ud83d\\ude00\\n"]}' > "$C/jscan/escapes.json"

# --- pickles: crafted snapshots and hostile opcodes from fixtures/pickle/gen.py
python3 "$ROOT/fixtures/pickle/gen.py" "$TMP/pk"
for f in "$TMP"/pk/*.pickle "$TMP"/pk/hostile/*.pickle; do
  [ "$(stat -c %s "$f")" -le 4096 ] || continue
  cp "$f" "$C/pickle/"
  cp "$f" "$C/snapshot/"
done
# flight-recorder dumps (pickle and JSON) from fixtures/flight_recorder
for d in "$ROOT"/fixtures/flight_recorder/*/; do
  n=$(basename "$d")
  for f in "$d"nccl_trace_rank_0 "$d"nccl_trace_rank_0.json; do
    [ -f "$f" ] || continue
    case "$f" in
      *.json) cp "$f" "$C/fr/$n.json"; cp "$f" "$C/jscan/fr-$n.json" ;;
      *) cp "$f" "$C/pickle/fr-$n"; cp "$f" "$C/snapshot/fr-$n" ;;
    esac
  done
done

# --- NCCL logs in 20-line chunks
for f in "$ROOT"/fixtures/nccl/*.log "$ROOT"/fixtures/nccl/*.txt; do
  split -l 20 -d -a 3 "$f" "$C/nccl/$(basename "$f")-"
done

for h in jscan trace pickle snapshot fr nccl; do
  printf 'corpus: %-8s %4d files %7d bytes\n' "$h" \
    "$(find "$C/$h" -type f | wc -l)" \
    "$(find "$C/$h" -type f -printf '%s\n' | awk '{s+=$1} END{print s+0}')"
done

# --- whole ingests: parts joined by "\n%%\n" (see fuzz/fuzz_ingest.c)
ingest_seed() {  # OUT PART...
  out=$1; shift
  first=1
  for part in "$@"; do
    [ $first = 1 ] || printf '\n%%%%\n'
    first=0
    cat "$part"
  done > "$C/ingest/$out"
}
ingest_seed tiny-linked "$C/trace/tiny-linked.json"
ingest_seed collective-x2 "$C/trace/collective.json" "$C/trace/collective.json"
ingest_seed legacy-nccl "$C/trace/legacy-array.json" "$C/trace/legacy-array.json" \
  "$C/nccl/p2p-fp8-2.24.log-000"
ingest_seed tiny-nccl "$C/trace/tiny-linked.json" "$C/trace/collective.json" \
  "$C/nccl/init-variants.log-000"
ingest_seed fr-json "$C/fr/clean_json.json"
ingest_seed sample-cut "$C/trace/host_4000.1767189312000000000.json" \
  "$C/trace/host_4001.1767189312000000000.json"
