/*
** kernel_seq.c — counts the sequences of consecutive kernels of one
** rank's streams (see kernel_seq.h) in an open-addressing table keyed by
** (stream, length, names): one pass over each (device, stream) in start
** order, every start position adding its KS_MAX_LEN prefixes.
**
** Pipeline position: "derive" (called by derive_hta_series.c).  No SQL.
** Memory: the rank's kernel indexes plus one slot per distinct sequence
** (repeating training steps give few: about KS_MAX_LEN per kernel of a
** step).
*/
#include "analysis/kernel_seq.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

/* A slot: a sequence starting at aK[off] of length len. */
typedef struct KsSlot { int off, len; int64_t stream; int64_t n, ns, span; }
  KsSlot;

typedef struct KsTab {
  const HpGpu *a;
  const int *aK;                   /* kernel indexes, partitions in order */
  KsSlot *aSlot; unsigned nSlot, nUsed;
} KsTab;

static uint64_t ks_hash(const KsTab *t, int64_t stream, int off, int len){
  uint64_t h = (uint64_t)stream*0x9E3779B97F4A7C15ull ^ (uint64_t)len;
  for(int j=0; j<len; j++){
    h = (h ^ (uint64_t)t->a[t->aK[off+j]].name) * 0x100000001B3ull;
  }
  return h ^ (h>>29);
}

static int ks_same(const KsTab *t, const KsSlot *s, int64_t stream, int off,
                   int len){
  if( s->len!=len || s->stream!=stream ) return 0;
  for(int j=0; j<len; j++){
    if( t->a[t->aK[s->off+j]].name!=t->a[t->aK[off+j]].name ) return 0;
  }
  return 1;
}

static void ks_grow(KsTab *t);

/* a + b for the sums of a sequence's times, held at INT64_MAX: a
** kernel counts in up to KS_MAX_LEN sequences of each length, so the sums
** can pass what the trace's own sums (under 2^62 ns) can */
static int64_t sat_add(int64_t a, int64_t b){
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

/* Count one occurrence of aK[off..off+len). */
static void ks_add(KsTab *t, int64_t stream, int off, int len){
  unsigned mask = t->nSlot-1;
  unsigned h = (unsigned)ks_hash(t, stream, off, len) & mask;
  const HpGpu *f = &t->a[t->aK[off]], *l = &t->a[t->aK[off+len-1]];
  int64_t ns = 0;
  KsSlot *s;
  for(int j=0; j<len; j++){
    const HpGpu *g = &t->a[t->aK[off+j]];
    ns += g->end - g->ts;
  }
  while( t->aSlot[h].len>0 && !ks_same(t, &t->aSlot[h], stream, off, len) ){
    h = (h+1) & mask;
  }
  s = &t->aSlot[h];
  if( s->len==0 ){
    s->off = off;
    s->len = len;
    s->stream = stream;
    s->n = s->ns = s->span = 0;
    t->nUsed++;
  }
  s->n++;
  s->ns = sat_add(s->ns, ns);
  s->span = sat_add(s->span, l->end - f->ts);
  if( 2*t->nUsed>t->nSlot ) ks_grow(t);
}

static void ks_grow(KsTab *t){
  KsSlot *aOld = t->aSlot;
  unsigned nOld = t->nSlot;
  t->nSlot = nOld ? 2*nOld : 1024;
  t->aSlot = xcalloc(t->nSlot, sizeof(KsSlot));
  for(unsigned i=0; i<nOld; i++){
    unsigned h;
    if( aOld[i].len==0 ) continue;
    h = (unsigned)ks_hash(t, aOld[i].stream, aOld[i].off, aOld[i].len)
        & (t->nSlot-1);
    while( t->aSlot[h].len>0 ) h = (h+1) & (t->nSlot-1);
    t->aSlot[h] = aOld[i];
  }
  free(aOld);
}

KsSeq *kernel_seq_rank(const HpGpu *a, int n, int *pn){
  int *aK = xmalloc(sizeof(int)*((size_t)n+1));
  KsTab t;
  KsSeq *aOut;
  int nOut = 0;
  memset(&t, 0, sizeof(t));
  t.a = a;
  t.aK = aK;
  ks_grow(&t);
  for(int lo=0, nK=0; lo<n; ){           /* per (device, stream) */
    int hi = lo, k0 = nK;
    while( hi<n && a[hi].device==a[lo].device
           && a[hi].stream==a[lo].stream ) hi++;
    for(int i=lo; i<hi; i++) if( a[i].cls==HP_KERNEL ) aK[nK++] = i;
    for(int p=k0; p<nK; p++){
      for(int len=1; len<=KS_MAX_LEN && p+len<=nK; len++){
        ks_add(&t, a[lo].stream, p, len);
      }
    }
    lo = hi;
  }
  aOut = xmalloc(sizeof(KsSeq)*((size_t)t.nUsed+1));
  for(unsigned i=0; i<t.nSlot; i++){
    const KsSlot *s = &t.aSlot[i];
    KsSeq *o;
    if( s->len==0 ) continue;
    o = &aOut[nOut++];
    o->stream = s->stream;
    o->len = s->len;
    for(int j=0; j<s->len; j++) o->aName[j] = a[aK[s->off+j]].name;
    o->n = s->n;
    o->ns = s->ns;
    o->spanNs = s->span;
  }
  free(t.aSlot);
  free(aK);
  *pn = nOut;
  return aOut;
}
