/*
** fuzz_nccl.c — libFuzzer harness for the NCCL debug-log parser
** (src/comm/parse_nccl.c).
**
** The input is split at '\n' and each physical line (without the newline,
** not NUL-terminated: it is copied into a heap buffer of exactly its
** length so ASan catches any read past it) goes to parse_nccl_line();
** then parse_nccl_finish().  Every sink callback reads every field of
** the prefix and of its record, including the borrowed zText / zDtype /
** zRedop strings.
**
** Build and run (see fuzz/README.md):
**   CC=clang cmake -S . -B build-fuzz -DPROFAN_FUZZ=ON
**   cmake --build build-fuzz --target fuzz_nccl
**   ./build-fuzz/fuzz_nccl -max_total_time=60 CORPUS_DIR
** or simply scripts/fuzz.sh.
*/
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "comm/parse_nccl.h"
#include "fuzz_common.h"

static void touch_prefix(const NcclPrefix *p){
  fuzz_touch(p, sizeof(*p));
  fuzz_touch_str(p->zHost);
  fuzz_touch_str(p->zTs);
  fuzz_touch_str(p->zSrcFile);
}

static int on_version(void *ctx, const NcclPrefix *p, const NcclVersion *r){
  (void)ctx; touch_prefix(p);
  fuzz_touch(r, sizeof(*r)); fuzz_touch_str(r->zVersion);
  return 0;
}
static int on_init(void *ctx, const NcclPrefix *p, const NcclInit *r){
  (void)ctx; touch_prefix(p);
  fuzz_touch(r, sizeof(*r));
  fuzz_touch_str(r->zFunc); fuzz_touch_str(r->zBusId);
  return 0;
}
static int on_conn(void *ctx, const NcclPrefix *p, const NcclConn *r){
  (void)ctx; touch_prefix(p);
  fuzz_touch(r, sizeof(*r));
  fuzz_touch_str(r->zRankDev); fuzz_touch_str(r->zPeerDev);
  fuzz_touch_str(r->zVia);
  return 0;
}
static int on_channel(void *ctx, const NcclPrefix *p, const NcclChannel *r){
  (void)ctx; touch_prefix(p);
  fuzz_touch_i64(r->kind); fuzz_touch_i64(r->channel);
  fuzz_touch_i64(r->nChannels); fuzz_touch_i64(r->nColl);
  fuzz_touch_i64(r->nCollnet); fuzz_touch_i64(r->nNvls);
  fuzz_touch_i64(r->nP2p); fuzz_touch_i64(r->nP2pPerPeer);
  fuzz_touch_i64((int64_t)r->commHint);
  fuzz_touch_str(r->zText);
  return 0;
}
static int on_timing(void *ctx, const NcclPrefix *p, const NcclTiming *r){
  int i;
  (void)ctx; touch_prefix(p);
  fuzz_touch_i64(r->kind); fuzz_touch_str(r->zFunc);
  fuzz_touch_i64(r->rank); fuzz_touch_i64(r->nranks);
  fuzz_touch_dbl(r->total);
  for(i=0; i<r->nPart; i++){
    fuzz_touch_str(r->aPart[i].zName);
    fuzz_touch_dbl(r->aPart[i].v);
  }
  return 0;
}
static int on_tuning(void *ctx, const NcclPrefix *p, const NcclTuning *r){
  (void)ctx; touch_prefix(p);
  fuzz_touch_i64(r->kind); fuzz_touch_str(r->zFunc);
  fuzz_touch_i64(r->bytes); fuzz_touch_str(r->zAlgo);
  fuzz_touch_str(r->zProto); fuzz_touch_str(r->zKernel);
  fuzz_touch_i64(r->chanLo); fuzz_touch_i64(r->chanHi);
  fuzz_touch_i64(r->nChannels); fuzz_touch_i64(r->nThreads);
  fuzz_touch_dbl(r->time);
  fuzz_touch_str(r->zText);
  return 0;
}
static int on_warn(void *ctx, const NcclPrefix *p, const NcclWarn *r){
  (void)ctx; touch_prefix(p);
  fuzz_touch_i64(r->bDowngraded); fuzz_touch_str(r->zFile);
  fuzz_touch_i64(r->line); fuzz_touch_str(r->zText);
  return 0;
}
static int on_destroy(void *ctx, const NcclPrefix *p, const NcclDestroy *r){
  (void)ctx; touch_prefix(p);
  fuzz_touch(r, sizeof(*r)); fuzz_touch_str(r->zWhat);
  return 0;
}
static int on_coll(void *ctx, const NcclPrefix *p, const NcclColl *r){
  (void)ctx; touch_prefix(p);
  fuzz_touch_i64(r->op); fuzz_touch_str(r->zOp);
  fuzz_touch_i64((int64_t)r->opCount);
  fuzz_touch_i64((int64_t)r->sendbuff); fuzz_touch_i64((int64_t)r->recvbuff);
  fuzz_touch_i64((int64_t)r->buf); fuzz_touch_i64(r->count);
  fuzz_touch_i64(r->dtype); fuzz_touch_str(r->zDtype);
  fuzz_touch_i64(r->dtypeSize); fuzz_touch_i64(r->bytes);
  fuzz_touch_i64(r->redop); fuzz_touch_str(r->zRedop);
  fuzz_touch_i64(r->root); fuzz_touch_i64(r->peer);
  fuzz_touch_i64((int64_t)r->comm); fuzz_touch_i64(r->nranks);
  fuzz_touch_i64((int64_t)r->stream);
  return 0;
}

static const NcclSink sink = {
  on_version, on_init, on_conn, on_channel, on_timing, on_tuning,
  on_warn, on_destroy, on_coll
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size){
  NcclStats stats;
  PfError err;
  NcclParser *p;
  size_t i = 0;
  int64_t lineno = 0;
  memset(&err, 0, sizeof(err));
  p = parse_nccl_new(&sink, NULL, &stats);
  while( i<size ){
    const uint8_t *nl = memchr(data+i, '\n', size-i);
    size_t n = nl ? (size_t)(nl-(data+i)) : size-i;
    /* exact-size copy: a read past the line end is an ASan error */
    char *z = malloc(n ? n : 1);
    if( z==NULL ) break;
    memcpy(z, data+i, n);
    (void)parse_nccl_line(p, z, n, ++lineno);
    free(z);
    i += n + (nl ? 1 : 0);
  }
  (void)parse_nccl_finish(p, &err);
  fuzz_touch(&stats, sizeof(stats));
  fuzz_touch_str(err.zMsg);
  parse_nccl_free(p);
  return 0;
}
