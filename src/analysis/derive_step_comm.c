/*
** derive_step_comm.c — the communication inside each step of a run:
** step_comm(run_id, rank, step, comm_ns, exposed_ns) of
** schema/093-step-comm.sql.
**
** Per rank, from the GPU spans the writer kept (trace_spans.h, the rows
** derive_trace.c's GPU sweep reads for comm_overlap): per device, the
** union of its communication kernels (view comm_kernel, the one
** definition) and of its other kernels; the exposed communication is the
** first minus the second; the rank's comm and exposed intervals are the
** unions over its devices.  Each step's window is the step time that
** bounds its work (step.bound_ts, bound_dur: derive_step_bound.c; the
** ProfilerStep range where a step has none), so a step's comm_ns and
** exposed_ns never pass its step time, and communication outside every
** step (before the first, after the last, between gap steps) counts in no
** step.  run_metric's exposed_comm_ms (the report's "exposed comm ms per
** step", the exposed-comm finding's per-step figure) is the mean of
** exposed_ns over the steady steps.
**
** Pipeline position: "derive", called by derive_run.c after
** derive_step_bound and before derive_core.  Rows for every step of each
** rank that ran kernels.
*/
#include "analysis/derive_step_comm.h"
#include "core/db.h"
#include "core/msort.h"

#include <stdlib.h>
#include <string.h>

/* Intervals [b, e); after iv_union sorted by b and disjoint. */
typedef struct Iv { int64_t b, e; } Iv;
typedef struct IvList {
  Iv *a;
  size_t n, cap;
} IvList;

static void iv_push(IvList *p, int64_t b, int64_t e){
  if( e<=b ) return;
  if( p->n==p->cap ){
    p->cap = p->cap ? 2*p->cap : 256;
    p->a = xrealloc(p->a, p->cap*sizeof(Iv));
  }
  p->a[p->n].b = b;
  p->a[p->n].e = e;
  p->n++;
}

/* Push [b, e) to a list built in order of b, merging with the last. */
static void iv_add_sorted(IvList *p, int64_t b, int64_t e){
  if( p->n>0 && b<=p->a[p->n-1].e ){
    if( e>p->a[p->n-1].e ) p->a[p->n-1].e = e;
    return;
  }
  iv_push(p, b, e);
}

static int iv_cmp(const Iv *x, const Iv *y){
  if( x->b!=y->b ) return x->b<y->b ? -1 : 1;
  return (x->e>y->e) - (x->e<y->e);
}
DEFINE_MSORT(iv_sort, Iv, iv_cmp)

/* Sort p and merge its overlapping intervals. */
static void iv_union(IvList *p){
  size_t k = 0;
  iv_sort(p->a, p->n);
  for(size_t i=0; i<p->n; i++){
    if( k>0 && p->a[i].b<=p->a[k-1].e ){
      if( p->a[i].e>p->a[k-1].e ) p->a[k-1].e = p->a[i].e;
    }else{
      p->a[k++] = p->a[i];
    }
  }
  p->n = k;
}

/* Append x minus y to pOut (x and y sorted and disjoint). */
static void iv_minus(const IvList *x, const IvList *y, IvList *pOut){
  size_t j = 0;
  for(size_t i=0; i<x->n; i++){
    int64_t b = x->a[i].b, e = x->a[i].e;
    while( j<y->n && y->a[j].e<=b ) j++;
    for(size_t k=j; k<y->n && y->a[k].b<e; k++){
      if( y->a[k].b>b ) iv_push(pOut, b, y->a[k].b);
      if( y->a[k].e>b ) b = y->a[k].e;
    }
    if( b<e ) iv_push(pOut, b, e);
  }
}

/* The length of p (sorted, disjoint) before time x; aSum[i]: the length
** of p->a[0..i). */
static int64_t iv_before(const IvList *p, const int64_t *aSum, int64_t x){
  size_t lo = 0, hi = p->n;
  int64_t len;
  while( lo<hi ){                   /* lo: the intervals starting before x */
    size_t mid = lo+(hi-lo)/2;
    if( p->a[mid].b<x ) lo = mid+1; else hi = mid;
  }
  len = aSum[lo];
  if( lo>0 && p->a[lo-1].e>x ) len -= p->a[lo-1].e - x;
  return len;
}

/* A new array of the prefix lengths of p (n+1 entries; caller frees). */
static int64_t *iv_sums(const IvList *p){
  int64_t *a = xmalloc((p->n+1)*sizeof(int64_t));
  a[0] = 0;
  for(size_t i=0; i<p->n; i++) a[i+1] = a[i] + p->a[i].e - p->a[i].b;
  return a;
}

/* The communication and exposed communication intervals of one rank
** (each the union over its devices) into pComm and pExp; 0 when the
** rank ran no kernel. */
static int rank_intervals(const TraceSpans *pSpans, int64_t rank,
                          const int64_t *aComm, int nComm, IvList *pComm,
                          IvList *pExp){
  size_t n = 0;
  SpanGpu *a = trace_spans_rank_gpu(pSpans, rank, &n);
  IvList c = {0, 0, 0}, k = {0, 0, 0};
  int nKernel = 0;
  pComm->n = pExp->n = 0;
  for(size_t i=0; i<=n; i++){
    if( i==n || (i>0 && a[i].device!=a[i-1].device) ){
      /* a device's spans come in order of start: c and k are unions */
      iv_minus(&c, &k, pExp);
      for(size_t j=0; j<c.n; j++) iv_push(pComm, c.a[j].b, c.a[j].e);
      c.n = k.n = 0;
      if( i==n ) break;
    }
    if( a[i].kind!=SPAN_KERNEL ) continue;
    nKernel++;
    iv_add_sorted(util_id_in(aComm, nComm, a[i].name) ? &c : &k, a[i].ts,
                  a[i].ts+a[i].dur);
  }
  free(a);
  free(c.a);
  free(k.a);
  iv_union(pComm);
  iv_union(pExp);
  return nKernel>0;
}

int derive_step_comm(sqlite3 *db, int64_t runId, const TraceSpans *pSpans,
                     PfError *pErr){
  int nComm = 0, rc;
  int64_t *aComm, rank = 0, *aSumC = NULL, *aSumE = NULL;
  IvList comm = {0, 0, 0}, ex = {0, 0, 0};
  int haveRank = 0, hasKernel = 0, bad = 0;
  sqlite3_stmt *pStep, *pIns;
  if( pSpans==NULL ) return 0;
  aComm = db_id_set(db, db_statement("comm-kernel-names"), runId,
                    &nComm, pErr);
  if( aComm==NULL ) return -1;
  pStep = db_prepare(db, db_statement("derive-step-comm-steps"), pErr);
  pIns = db_prepare(db, db_statement("derive-step-comm-insert"), pErr);
  if( pStep==NULL || pIns==NULL ){
    sqlite3_finalize(pStep);
    sqlite3_finalize(pIns);
    free(aComm);
    return -1;
  }
  sqlite3_bind_int64(pStep, 1, runId);
  sqlite3_bind_int64(pIns, 1, runId);
  while( (rc = sqlite3_step(pStep))==SQLITE_ROW ){
    int64_t r = sqlite3_column_int64(pStep, 0);
    int64_t b = sqlite3_column_int64(pStep, 2);
    int64_t e = b + sqlite3_column_int64(pStep, 3);
    if( !haveRank || r!=rank ){
      rank = r;
      haveRank = 1;
      free(aSumC);
      free(aSumE);
      hasKernel = rank_intervals(pSpans, rank, aComm, nComm, &comm, &ex);
      aSumC = iv_sums(&comm);
      aSumE = iv_sums(&ex);
    }
    if( !hasKernel ) continue;
    sqlite3_bind_int64(pIns, 2, rank);
    sqlite3_bind_int64(pIns, 3, sqlite3_column_int64(pStep, 1));
    sqlite3_bind_int64(pIns, 4, iv_before(&comm, aSumC, e)
                                - iv_before(&comm, aSumC, b));
    sqlite3_bind_int64(pIns, 5, iv_before(&ex, aSumE, e)
                                - iv_before(&ex, aSumE, b));
    if( db_step_done(db, pIns, pErr) ){
      bad = 1;
      break;
    }
  }
  if( !bad && rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
    bad = 1;
  }
  sqlite3_finalize(pStep);
  sqlite3_finalize(pIns);
  free(aComm);
  free(aSumC);
  free(aSumE);
  free(comm.a);
  free(ex.a);
  return bad ? -1 : 0;
}
