/*
** trace_record.c — a TraceEvent to and from a compact record of bytes
** (trace_record.h).
**
** Pipeline position: under link_trace.c, in the parser threads.
*/
#include "trace/trace_record.h"

#include <stddef.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The head of a record; then the 8-byte fields (below) whose bit is set
** in mask, the CollArgs when hasColl, the five strings (name,
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

/* The 8-byte fields of TraceEvent but the pointers, 40 of them in two
** runs: 33 from pid to stream (the doubles among them), 7 from rowId to
** step.  A record holds the non-zero ones, bit i of the mask for field i
** in that order.  The encoder and decoder walk the runs (no table, no
** branch per field).  A field added to TraceEvent must be added to a run
** or to RecHead: the checks below fail until it is. */
#define RUN_A 33
#define RUN_B 7
#define N_WORD (RUN_A+RUN_B)
_Static_assert(offsetof(TraceEvent, stream)-offsetof(TraceEvent, pid)
               ==(RUN_A-1)*8, "run A of the fields");
_Static_assert(offsetof(TraceEvent, step)-offsetof(TraceEvent, rowId)
               ==(RUN_B-1)*8, "run B of the fields");
/* The words, the six pointers and the head fields with their padding
** (LP64: kind, ph, has, nName in 24 bytes; depth, inRecompute, linked in
** 16). */
_Static_assert(sizeof(TraceEvent)==N_WORD*8 + 6*sizeof(void*) + 24 + 16,
               "a TraceEvent field is missing from trace_record.c");
_Static_assert(N_WORD<=64, "mask bits");

/* Bits (from shift) of the words of run z (n words) that are not zero.
** SSE2 tests two words at once; the bits are the same without it. */
static uint64_t run_mask(const char *z, int n, int shift){
  uint64_t m = 0;
  int i = 0;
#ifdef __SSE2__
  const __m128i zero = _mm_setzero_si128();
  uint64_t zeros = 0;
  for(; i+2<=n; i+=2){
    __m128i c = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i*)(z + 8*i)),
                                zero);
    /* a word is zero when both of its halves are */
    c = _mm_and_si128(c, _mm_shuffle_epi32(c, _MM_SHUFFLE(2,3,0,1)));
    zeros |= (uint64_t)_mm_movemask_pd(_mm_castsi128_pd(c)) << i;
  }
  m = ~zeros & (((uint64_t)1 << i) - 1);
#endif
  for(; i<n; i++){
    uint64_t w;
    memcpy(&w, z + 8*i, 8);
    m |= (uint64_t)(w!=0) << i;
  }
  return m << shift;
}

/* Copy the words of run z whose bit is set in m (bit 0: word 0) to d, in
** order; returns the end of what was written. */
static char *run_put(char *d, const char *z, uint64_t m){
  while( m ){
    memcpy(d, z + 8*__builtin_ctzll(m), 8);
    d += 8;
    m &= m - 1;
  }
  return d;
}

/* Bits set in m (no popcnt instruction in the x86-64 baseline: the
** builtin would call libgcc). */
static int bit_count(uint64_t m){
  m = m - ((m >> 1) & 0x5555555555555555ULL);
  m = (m & 0x3333333333333333ULL) + ((m >> 2) & 0x3333333333333333ULL);
  m = (m + (m >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
  return (int)((m * 0x0101010101010101ULL) >> 56);
}

int trace_record_append(Spool *s, const TraceEvent *e, int64_t *pLen){
  const char *az[5];
  size_t an[5];
  const char *zA = (const char*)&e->pid, *zB = (const char*)&e->rowId;
  RecHead h;
  int64_t len, nWord;
  char *d, *z;
  memset(&h, 0, sizeof(h));
  h.mask = run_mask(zA, RUN_A, 0) | run_mask(zB, RUN_B, RUN_A);
  h.has = e->has;
  h.kind = (int32_t)e->kind;
  h.nName = e->nName;
  h.depth = e->depth;
  h.inRecompute = e->inRecompute;
  h.linked = e->linked;
  h.hasColl = e->pColl!=NULL;
  h.ph = e->ph;
  az[0] = e->zName; az[1] = e->zCat; az[2] = e->zInputDims;
  az[3] = e->zInputTypes; az[4] = e->zConcreteInputs;
  nWord = bit_count(h.mask);
  len = (int64_t)sizeof(RecHead) + 8*nWord;
  for(int i=0; i<5; i++){
    if( az[i]==NULL ) az[i] = "";
    an[i] = strlen(az[i]);
    h.n[i] = (uint32_t)an[i];
    len += (int64_t)an[i] + 1;
  }
  if( h.hasColl ) len += sizeof(CollArgs);
  len = (len + 7) & ~(int64_t)7;
  z = spool_reserve(s, (size_t)len);
  if( z==NULL ) return -1;
  memcpy(z, &h, sizeof(h));
  d = run_put(z + sizeof(h), zA, h.mask & (((uint64_t)1 << RUN_A) - 1));
  d = run_put(d, zB, h.mask >> RUN_A);
  if( h.hasColl ){
    memcpy(d, e->pColl, sizeof(CollArgs));
    d += sizeof(CollArgs);
  }
  for(int i=0; i<5; i++){
    memcpy(d, az[i], an[i]+1);
    d += an[i]+1;
  }
  memset(d, 0, (size_t)(z + len - d));   /* the padding */
  *pLen = len;
  return spool_commit(s, (size_t)len);
}

int64_t trace_record_len(const char *z){
  RecHead h;
  int64_t len;
  memcpy(&h, z, sizeof(h));
  len = (int64_t)sizeof(h) + 8*(int64_t)bit_count(h.mask);
  for(int i=0; i<5; i++) len += h.n[i] + 1;
  if( h.hasColl ) len += sizeof(CollArgs);
  return (len + 7) & ~(int64_t)7;
}

/* Set the words of run d whose bit is set in m (bit 0: word 0) from the
** record's words at *pz, in order; advances *pz.  The others stay. */
static void run_get(char *d, const char **pz, uint64_t m){
  const char *z = *pz;
  while( m ){
    memcpy(d + 8*__builtin_ctzll(m), z, 8);
    z += 8;
    m &= m - 1;
  }
  *pz = z;
}

void trace_record_decode(const char *z, TraceEvent *e){
  const RecHead *h = (const RecHead*)z;
  const char *zs = z + sizeof(RecHead);
  memset(e, 0, sizeof(*e));
  run_get((char*)&e->pid, &zs, h->mask & (((uint64_t)1 << RUN_A) - 1));
  run_get((char*)&e->rowId, &zs, h->mask >> RUN_A);
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
  e->zName = zs;
  zs += h->n[0] + 1;
  e->zCat = zs;
  zs += h->n[1] + 1;
  e->zInputDims = zs;
  zs += h->n[2] + 1;
  e->zInputTypes = zs;
  zs += h->n[3] + 1;
  e->zConcreteInputs = zs;
}
