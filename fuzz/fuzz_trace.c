/*
** fuzz_trace.c — libFuzzer harness for the Kineto trace parser
** (src/trace/parse_trace.c, with src/input/input.c, src/input/jscan.c,
** src/trace/trace_args.c) and the in-stream linker
** (src/trace/link_trace.c).
**
** The input is written to an anonymous memfd and opened through
** input_open("/proc/self/fd/N") exactly as a trace file would be (so a
** gzip input goes through the zlib path too).  parse_trace() hands each
** event to a sink that touches every field and string of the event
** (name, category, list args, collective args) and then, like ingest_trace.c,
** passes the non-OTHER events to link_trace_event(); link_trace_finish() and
** link_trace_stats() are called at the end.  The emit callback does nothing.
**
** Build and run (see fuzz/README.md):
**   CC=clang cmake -S . -B build-fuzz -DPROFAN_FUZZ=ON
**   cmake --build build-fuzz --target fuzz_trace
**   ./build-fuzz/fuzz_trace -max_total_time=60 CORPUS_DIR
** or simply scripts/fuzz.sh.
*/
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "input/input.h"
#include "trace/parse_trace.h"
#include "trace/link_trace.h"
#include "fuzz_common.h"

typedef struct Ctx {
  Linker *pLink;
  const TraceInfo *pInfo;
  PfError linkErr;
  int linkFailed;
} Ctx;

static void touch_event(const TraceEvent *e){
  int i;
  fuzz_touch_i64(e->kind);
  fuzz_touch_i64(e->ph);
  fuzz_touch_i64(e->has);
  if( e->zName ){
    fuzz_touch(e->zName, (size_t)(e->nName>0 ? e->nName : 0));
    fuzz_touch_str(e->zName);
  }
  fuzz_touch_str(e->zCat);
  fuzz_touch_i64(e->pid); fuzz_touch_i64(e->tid);
  fuzz_touch_i64(e->ts); fuzz_touch_i64(e->dur); fuzz_touch_i64(e->offset);
  fuzz_touch_i64(e->correlation); fuzz_touch_i64(e->external_id);
  fuzz_touch_i64(e->cbid); fuzz_touch_i64(e->sequence);
  fuzz_touch_i64(e->fwd_tid);
  for(i=0; i<3; i++){ fuzz_touch_i64(e->grid[i]); fuzz_touch_i64(e->block[i]); }
  fuzz_touch_i64(e->registers); fuzz_touch_i64(e->shared_mem);
  fuzz_touch_i64(e->bytes);
  fuzz_touch_dbl(e->blocks_per_sm); fuzz_touch_dbl(e->warps_per_sm);
  fuzz_touch_dbl(e->occupancy); fuzz_touch_dbl(e->flops);
  fuzz_touch_i64(e->device_type); fuzz_touch_i64(e->device_id);
  fuzz_touch_i64(e->addr); fuzz_touch_i64(e->total_alloc);
  fuzz_touch_i64(e->total_reserved);
  fuzz_touch_i64(e->python_id); fuzz_touch_i64(e->python_parent);
  fuzz_touch_i64(e->device); fuzz_touch_i64(e->stream);
  fuzz_touch_str(e->zInputDims);
  fuzz_touch_str(e->zInputTypes);
  fuzz_touch_str(e->zConcreteInputs);
  if( e->pColl ){
    const CollArgs *a = e->pColl;
    fuzz_touch(a, sizeof(*a));
    fuzz_touch_str(a->zCollName); fuzz_touch_str(a->zDtype);
    fuzz_touch_str(a->zPgName); fuzz_touch_str(a->zPgDesc);
    fuzz_touch_str(a->zPgRanks); fuzz_touch_str(a->zInSplit);
    fuzz_touch_str(a->zOutSplit);
  }
}

/* Linker output: nothing to store. */
static int emit_nothing(void *ctx, const TraceEvent *e){
  (void)ctx; (void)e;
  return 0;
}

static int sink(void *ctx, const TraceEvent *e){
  Ctx *c = ctx;
  touch_event(e);
  if( e->kind==TEV_OTHER ) return 0;     /* as ingest_trace.c:worker_sink */
  if( c->pLink && !c->linkFailed ){
    if( link_trace_event(c->pLink, e, &c->linkErr) ) c->linkFailed = 1;
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size){
  Ctx c;
  TraceInfo info;
  PfError err;
  Input *pIn;
  char zPath[64];
  int fd, rc, i;
  size_t off = 0;

  fd = memfd_create("fuzz_trace", 0);
  if( fd<0 ) return 0;
  while( off<size ){
    ssize_t w = write(fd, data+off, size-off);
    if( w<=0 ){ close(fd); return 0; }
    off += (size_t)w;
  }
  snprintf(zPath, sizeof(zPath), "/proc/self/fd/%d", fd);

  memset(&c, 0, sizeof(c));
  memset(&info, 0, sizeof(info));
  memset(&err, 0, sizeof(err));
  pIn = input_open(zPath, &err);
  if( pIn==NULL ){ close(fd); return 0; }
  c.pLink = link_trace_new(1, emit_nothing, &c);
  c.pInfo = &info;
  rc = parse_trace(pIn, sink, &c, &info, &err);
  if( rc==0 && c.pLink && !c.linkFailed ){
    (void)link_trace_finish(c.pLink, &c.linkErr);
  }
  if( c.pLink ){
    const LinkStats *s = link_trace_stats(c.pLink);
    fuzz_touch(s, sizeof(*s));
    link_trace_free(c.pLink);
  }
  fuzz_touch_i64(input_offset(pIn));
  input_close(pIn);
  close(fd);

  /* the file-level info and the error message */
  fuzz_touch_str(info.zHostName);
  fuzz_touch_str(info.zTimeRegime);
  fuzz_touch_str(info.zFirstWarning);
  for(i=0; i<info.nDevices && i<64; i++) fuzz_touch_str(info.aDevice[i].zName);
  fuzz_touch_str(err.zMsg);
  fuzz_touch_str(c.linkErr.zMsg);
  return 0;
}
