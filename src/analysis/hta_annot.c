/*
** hta_annot.c — the nesting of CPU user annotations by one sweep per
** thread (hta_annot.h): parents of annotations and the innermost
** annotation around each launch call.
**
** The annotations of a thread are taken in the order (ts, longest first,
** id); the answer for a range or point is the last one taken so far
** whose end reaches it.  A stack keeps the candidates: an annotation
** whose end is at or before a later one's can never be the answer again
** (the later one contains whatever it contains and comes after it), so
** the ends on the stack fall from bottom to top and the answer is the
** topmost entry ending at or after the point: a binary search.  For the
** launch calls the answer is computed once per time where it can change
** (an annotation's start, the ns after its end) into a map per thread;
** a call is then one binary search: O(annotations log annotations +
** calls log annotations), no sort of the calls.  The view's correlated
** subquery read every earlier annotation of the rank for each op.
**
** Pipeline position: "derive" (called by derive_hta.c).
*/
#include "analysis/hta_annot.h"
#include "core/msort.h"
#include "core/util.h"

#include <stdint.h>
#include <stdlib.h>

static int cmp_i64(int64_t x, int64_t y){
  return x<y ? -1 : x>y;
}

static int annot_cmp(const HaAnnot *a, const HaAnnot *b){
  int c = cmp_i64(a->rank, b->rank);
  if( c==0 ) c = cmp_i64(a->tid, b->tid);
  if( c==0 ) c = cmp_i64(a->ts, b->ts);
  if( c==0 ) c = cmp_i64(b->end, a->end);
  if( c==0 ) c = cmp_i64(a->id, b->id);
  return c;
}

DEFINE_MSORT(annot_msort, HaAnnot, annot_cmp)

void hta_annot_sort(HaAnnot *a, size_t n){
  annot_msort(a, n);
}

/* The stack of candidates: indexes into the annotations, ends falling. */
typedef struct Stack { size_t *a; size_t n; } Stack;

static void stack_push(Stack *s, const HaAnnot *a, size_t i){
  while( s->n>0 && a[s->a[s->n-1]].end<=a[i].end ) s->n--;
  s->a[s->n++] = i;
}

/* The id of the topmost entry ending at or after t, 0 when none. */
static int64_t stack_find(const Stack *s, const HaAnnot *a, int64_t t){
  size_t lo = 0, hi = s->n;       /* entries [0, lo) end at or after t */
  while( lo<hi ){
    size_t mid = lo + (hi-lo)/2;
    if( a[s->a[mid]].end>=t ) lo = mid+1; else hi = mid;
  }
  return lo>0 ? a[s->a[lo-1]].id : 0;
}

/* One past the last annotation of a[i]'s thread. */
static size_t thread_end(const HaAnnot *a, size_t n, size_t i){
  size_t j = i;
  while( j<n && a[j].rank==a[i].rank && a[j].tid==a[i].tid ) j++;
  return j;
}

void hta_annot_parents(const HaAnnot *a, size_t n, int64_t *aParent){
  Stack s;
  s.a = xmalloc(sizeof(size_t)*(n ? n : 1));
  for(size_t i=0; i<n; ){
    size_t j = thread_end(a, n, i);
    s.n = 0;
    for(; i<j; i++){
      aParent[i] = stack_find(&s, a, a[i].end);
      stack_push(&s, a, i);
    }
  }
  free(s.a);
}

/* Where the innermost annotation changes, per thread: from aSeg[i].t on
** (to the next entry) it is aSeg[i].annot. */
typedef struct HaSeg { int64_t t, annot; } HaSeg;
typedef struct HaThread { int64_t rank, tid; size_t iSeg, nSeg; } HaThread;
struct HaMap {
  HaThread *aThr; size_t nThr;
  HaSeg *aSeg; size_t nSeg;
  size_t iLast;                   /* the thread of the last lookup */
};

static int cmp_t(const void *pA, const void *pB){
  return cmp_i64(*(const int64_t*)pA, *(const int64_t*)pB);
}

/* The segments of one thread's annotations a[0..n) into p.  The answer
** can change only where an annotation starts or just after one ends
** (times are integers): it is computed at each such time, in order. */
static void map_thread(HaMap *p, const HaAnnot *a, size_t n, Stack *s){
  int64_t *aT = xmalloc(sizeof(int64_t)*2*n);
  size_t nT = 0, i = 0;
  for(size_t k=0; k<n; k++){
    aT[nT++] = a[k].ts;
    if( a[k].end<INT64_MAX ) aT[nT++] = a[k].end + 1;
  }
  qsort(aT, nT, sizeof(aT[0]), cmp_t);
  s->n = 0;
  for(size_t k=0; k<nT; k++){
    int64_t id;
    if( k>0 && aT[k]==aT[k-1] ) continue;
    while( i<n && a[i].ts<=aT[k] ) stack_push(s, a, i++);
    id = stack_find(s, a, aT[k]);
    if( p->nSeg>p->aThr[p->nThr-1].iSeg && p->aSeg[p->nSeg-1].annot==id ){
      continue;                   /* no change */
    }
    p->aSeg[p->nSeg].t = aT[k];
    p->aSeg[p->nSeg++].annot = id;
  }
  free(aT);
}

HaMap *hta_annot_map(const HaAnnot *a, size_t n){
  HaMap *p = xmalloc(sizeof(*p));
  Stack s;
  p->aThr = xmalloc(sizeof(HaThread)*(n ? n : 1));
  p->aSeg = xmalloc(sizeof(HaSeg)*(2*n+1));
  p->nThr = p->nSeg = p->iLast = 0;
  s.a = xmalloc(sizeof(size_t)*(n ? n : 1));
  for(size_t i=0; i<n; ){
    size_t j = thread_end(a, n, i);
    HaThread *t = &p->aThr[p->nThr++];
    t->rank = a[i].rank;
    t->tid = a[i].tid;
    t->iSeg = p->nSeg;
    map_thread(p, a+i, j-i, &s);
    t->nSeg = p->nSeg - t->iSeg;
    i = j;
  }
  free(s.a);
  return p;
}

void hta_annot_map_free(HaMap *p){
  if( p==NULL ) return;
  free(p->aThr);
  free(p->aSeg);
  free(p);
}

/* The thread (rank, tid) of p, or NULL. */
static const HaThread *find_thread(HaMap *p, int64_t rank, int64_t tid){
  size_t lo = 0, hi = p->nThr;
  const HaThread *t;
  if( p->iLast<p->nThr ){
    t = &p->aThr[p->iLast];
    if( t->rank==rank && t->tid==tid ) return t;
  }
  while( lo<hi ){                 /* the first thread >= (rank, tid) */
    size_t mid = lo + (hi-lo)/2;
    t = &p->aThr[mid];
    if( t->rank<rank || (t->rank==rank && t->tid<tid) ) lo = mid+1;
    else hi = mid;
  }
  if( lo>=p->nThr ) return NULL;
  t = &p->aThr[lo];
  if( t->rank!=rank || t->tid!=tid ) return NULL;
  p->iLast = lo;
  return t;
}

int64_t hta_annot_at(HaMap *p, int64_t rank, int64_t tid, int64_t t){
  const HaThread *h = find_thread(p, rank, tid);
  const HaSeg *a;
  size_t lo = 0, hi;
  if( h==NULL ) return 0;
  a = p->aSeg + h->iSeg;
  hi = h->nSeg;
  while( lo<hi ){                 /* segments [0, lo) start at or before t */
    size_t mid = lo + (hi-lo)/2;
    if( a[mid].t<=t ) lo = mid+1; else hi = mid;
  }
  return lo>0 ? a[lo-1].annot : 0;
}
