/*
** trace_record.c — a TraceEvent to and from a compact record of bytes
** (trace_record.h).
**
** Pipeline position: under link_trace.c, in the parser threads.
*/
#include "trace/trace_record.h"

#include <stddef.h>
#include <string.h>

/* The head of a record; then the fields of aWord whose bit is set in
** mask, 8 bytes each, the CollArgs when hasColl, the five strings (name,
** cat, dims, types, concrete inputs) each NUL-terminated, padding to 8. */
typedef struct RecHead {
  uint64_t mask;
  uint32_t n[5];
  uint32_t has;
  int32_t kind, nName, depth, inRecompute, linked;
  uint16_t hasColl;
  char ph, pad;
} RecHead;

_Static_assert(sizeof(RecHead)==TRACE_RECORD_HEAD, "TRACE_RECORD_HEAD");

/* Every 8-byte field of TraceEvent but the pointers.  A field added to
** TraceEvent must be added here or to RecHead: the size check below
** fails until it is. */
static const unsigned short aWord[] = {
  offsetof(TraceEvent, pid), offsetof(TraceEvent, tid),
  offsetof(TraceEvent, ts), offsetof(TraceEvent, dur),
  offsetof(TraceEvent, offset), offsetof(TraceEvent, correlation),
  offsetof(TraceEvent, external_id), offsetof(TraceEvent, cbid),
  offsetof(TraceEvent, sequence), offsetof(TraceEvent, fwd_tid),
  offsetof(TraceEvent, grid[0]), offsetof(TraceEvent, grid[1]),
  offsetof(TraceEvent, grid[2]), offsetof(TraceEvent, block[0]),
  offsetof(TraceEvent, block[1]), offsetof(TraceEvent, block[2]),
  offsetof(TraceEvent, registers), offsetof(TraceEvent, shared_mem),
  offsetof(TraceEvent, bytes), offsetof(TraceEvent, blocks_per_sm),
  offsetof(TraceEvent, warps_per_sm), offsetof(TraceEvent, occupancy),
  offsetof(TraceEvent, flops), offsetof(TraceEvent, mem_gbps),
  offsetof(TraceEvent, device_type),
  offsetof(TraceEvent, device_id), offsetof(TraceEvent, addr),
  offsetof(TraceEvent, total_alloc), offsetof(TraceEvent, total_reserved),
  offsetof(TraceEvent, python_id), offsetof(TraceEvent, python_parent),
  offsetof(TraceEvent, device), offsetof(TraceEvent, stream),
  offsetof(TraceEvent, rowId), offsetof(TraceEvent, parentId),
  offsetof(TraceEvent, selfDur), offsetof(TraceEvent, opId),
  offsetof(TraceEvent, topOpId), offsetof(TraceEvent, runtimeId),
  offsetof(TraceEvent, step),
};
#define N_WORD ((int)(sizeof(aWord)/sizeof(aWord[0])))

/* The words, the six pointers and the head fields with their padding
** (LP64: kind, ph, has, nName in 24 bytes; depth, inRecompute, linked in
** 16). */
_Static_assert(sizeof(TraceEvent)==N_WORD*8 + 6*sizeof(void*) + 24 + 16,
               "a TraceEvent field is missing from trace_record.c");
_Static_assert(N_WORD<=64, "mask bits");

int trace_record_append(Spool *s, const TraceEvent *e, int64_t *pLen){
  static const char zPad[8] = {0};
  const char *az[5];
  unsigned char aBuf[sizeof(RecHead) + 64*8];
  RecHead *h = (RecHead*)aBuf;
  size_t nHead = sizeof(RecHead);
  int64_t len;
  int rc;
  memset(h, 0, sizeof(*h));
  for(int i=0; i<N_WORD; i++){
    uint64_t w;
    memcpy(&w, (const char*)e + aWord[i], 8);
    if( w==0 ) continue;
    h->mask |= (uint64_t)1<<i;
    memcpy(aBuf + nHead, &w, 8);
    nHead += 8;
  }
  h->has = e->has;
  h->kind = (int32_t)e->kind;
  h->nName = e->nName;
  h->depth = e->depth;
  h->inRecompute = e->inRecompute;
  h->linked = e->linked;
  h->hasColl = e->pColl!=NULL;
  h->ph = e->ph;
  az[0] = e->zName; az[1] = e->zCat; az[2] = e->zInputDims;
  az[3] = e->zInputTypes; az[4] = e->zConcreteInputs;
  len = (int64_t)nHead;
  for(int i=0; i<5; i++){
    h->n[i] = az[i] ? (uint32_t)strlen(az[i]) : 0;
    len += h->n[i] + 1;
  }
  if( h->hasColl ) len += sizeof(CollArgs);
  rc = spool_append(s, aBuf, nHead);
  if( rc==0 && h->hasColl ) rc = spool_append(s, e->pColl, sizeof(CollArgs));
  for(int i=0; i<5 && rc==0; i++){
    rc = spool_append(s, az[i] ? az[i] : "", h->n[i]+1);
  }
  if( rc==0 && (len & 7) ){
    rc = spool_append(s, zPad, (size_t)(8-(len & 7)));
    len += 8-(len & 7);
  }
  *pLen = len;
  return rc;
}

int64_t trace_record_len(const char *z){
  RecHead h;
  int64_t len;
  memcpy(&h, z, sizeof(h));
  len = (int64_t)sizeof(h) + 8*(int64_t)__builtin_popcountll(h.mask);
  for(int i=0; i<5; i++) len += h.n[i] + 1;
  if( h.hasColl ) len += sizeof(CollArgs);
  return (len + 7) & ~(int64_t)7;
}

void trace_record_decode(const char *z, TraceEvent *e){
  const RecHead *h = (const RecHead*)z;
  const char **apz[5];
  const char *zs = z + sizeof(RecHead);
  memset(e, 0, sizeof(*e));
  for(int i=0; i<N_WORD; i++){
    if( (h->mask>>i) & 1 ){
      memcpy((char*)e + aWord[i], zs, 8);
      zs += 8;
    }
  }
  e->has = h->has;
  e->kind = (TraceEventKind)h->kind;
  e->nName = h->nName;
  e->depth = h->depth;
  e->inRecompute = h->inRecompute;
  e->linked = h->linked;
  e->ph = h->ph;
  if( h->hasColl ){
    e->pColl = (const CollArgs*)zs;
    zs += sizeof(CollArgs);
  }
  apz[0] = &e->zName; apz[1] = &e->zCat; apz[2] = &e->zInputDims;
  apz[3] = &e->zInputTypes; apz[4] = &e->zConcreteInputs;
  for(int i=0; i<5; i++){
    *apz[i] = zs;
    zs += h->n[i] + 1;
  }
}
