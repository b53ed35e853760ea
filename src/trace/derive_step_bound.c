/*
** derive_step_bound.c — the step time that bounds the work: step.bound_ts,
** bound_dur and bound_by of a run (schema 040 and 092, sections of
** schema/001-baseline.sql, have the definition; tests/oracle/step_bound.sql
** is the same in SQL, the test oracle).
**
** A ProfilerStep range is the CPU's step.  When the CPU runs ahead of the
** GPU, the GPU work a step launched ends after the next step began and
** the CPU step no longer bounds the work.  Per rank, steps in time order,
** with c / e the CPU step's start / end and g0 / g1 the first start and
** last end of the GPU activity the step launched (rows linked to a launch
** call of the step, by the call's step; a row without a launch, or one
** launched outside every step, e.g. before the profiled steps, has the
** step containing its own start and no say here):
**   E_k = the largest max(e_j, g1_j) over j <= k;
**   S_k = max(c_k, E_k-1); the first step: g0 when g0 >= e (its GPU
**         work began only after its CPU part ended), else c;
**   bound_ts = S_k, bound_dur = E_k - S_k (>= 0: E_k >= E_k-1, E_k >= c_k),
**   bound_by = 'cpu' when S = c and E = e, else 'gpu'.
**
** Pipeline position: "derive", called by derive_run.c after the trace
** derive (the steps of kernels and memcpys/memsets are final then), before
** the core metrics that read the step times through view step_steady.
** One pass over the run's steps; the span of each step's GPU work is what
** the writer kept of the rows as they went in (trace_spans_step_gpu: the
** rows are not read back), added per (rank, step) by binary search; no
** interval join in SQL.
*/
#include "trace/derive_step_bound.h"
#include "core/db.h"
#include "core/msort.h"

#include <stdlib.h>
#include <string.h>

/* One step of the run and the span of the GPU work it launched. */
typedef struct BoundStep {
  int64_t rank, step;
  int64_t c, e;          /* the CPU step [c, e) */
  int64_t g0, g1;        /* its GPU work; g0 > g1 when it has none */
} BoundStep;

/* Order by (rank, step): the lookup of a GPU row's step. */
static int cmp_rank_step(const BoundStep *x, const BoundStep *y){
  if( x->rank!=y->rank ) return x->rank<y->rank ? -1 : 1;
  return x->step<y->step ? -1 : x->step>y->step;
}
DEFINE_MSORT(sort_rank_step, BoundStep, cmp_rank_step)

/* Order by (rank, c, step): the steps of each rank in time order. */
static int cmp_rank_time(const BoundStep *x, const BoundStep *y){
  if( x->rank!=y->rank ) return x->rank<y->rank ? -1 : 1;
  if( x->c!=y->c ) return x->c<y->c ? -1 : 1;
  return x->step<y->step ? -1 : x->step>y->step;
}
DEFINE_MSORT(sort_rank_time, BoundStep, cmp_rank_time)

/* The run's steps into a new array sorted by (rank, step); *pn gets the
** count.  NULL with *pn 0 when there are none; -1 in *pn on error. */
static BoundStep *load_steps(sqlite3 *db, int64_t runId, int *pn,
                             PfError *pErr){
  sqlite3_stmt *s = db_prepare(db,
      db_statement("derive-step-bound-load-steps"), pErr);
  BoundStep *a = NULL;
  int n = 0, nAlloc = 0, rc;
  *pn = -1;
  if( s==NULL ) return NULL;
  sqlite3_bind_int64(s, 1, runId);
  while( (rc = sqlite3_step(s))==SQLITE_ROW ){
    if( n==nAlloc ){
      nAlloc = nAlloc ? 2*nAlloc : 64;
      a = xrealloc(a, sizeof(BoundStep)*(size_t)nAlloc);
    }
    a[n].rank = sqlite3_column_int64(s, 0);
    a[n].step = sqlite3_column_int64(s, 1);
    a[n].c = sqlite3_column_int64(s, 2);
    a[n].e = sqlite3_column_int64(s, 3);
    a[n].g0 = INT64_MAX;
    a[n].g1 = INT64_MIN;
    n++;
  }
  sqlite3_finalize(s);
  if( rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
    free(a);
    return NULL;
  }
  sort_rank_step(a, (size_t)n);
  *pn = n;
  return a;
}

/* The step (rank, step) in a[0..n) sorted by (rank, step), or NULL. */
static BoundStep *find_step(BoundStep *a, int n, int64_t rank, int64_t step){
  int lo = 0, hi = n;
  BoundStep key;
  key.rank = rank;
  key.step = step;
  while( lo<hi ){
    int mid = lo+(hi-lo)/2, c = cmp_rank_step(&a[mid], &key);
    if( c==0 ) return &a[mid];
    if( c<0 ) lo = mid+1; else hi = mid;
  }
  return NULL;
}

/* Widen each step's GPU span by the GPU rows whose launch call lies in
** the step (the call's step, not the row's own), as the writer kept them
** (trace_spans_step_gpu).  A row launched outside every step (before the
** profiled steps, the CPU a queue ahead) carries the step holding its own
** start (derive_trace.c) and is no step's work here: blocked-queue's
** 1,045 launches before ProfilerStep#1 run for 104 ms, into #1 and #4. */
static void add_gpu(const TraceSpans *pSpans, BoundStep *a, int n){
  size_t nG = 0;
  StepGpu *aG = trace_spans_step_gpu(pSpans, &nG);
  for(size_t i=0; i<nG; i++){
    BoundStep *p = find_step(a, n, aG[i].rank, aG[i].step);
    if( p==NULL ) continue;
    if( aG[i].g0<p->g0 ) p->g0 = aG[i].g0;
    if( aG[i].g1>p->g1 ) p->g1 = aG[i].g1;
  }
  free(aG);
}

/* Write the bound of every step: a[] sorted by (rank, c, step). */
static int write_bounds(sqlite3 *db, int64_t runId, const BoundStep *a,
                        int n, PfError *pErr){
  sqlite3_stmt *s = db_prepare(db,
                               db_statement("derive-step-bound-write-bounds"),
    pErr);
  int64_t endPrev = 0;
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, runId);
  for(int i=0; i<n; i++){
    const BoundStep *p = &a[i];
    int first = i==0 || a[i-1].rank!=p->rank;
    int hasGpu = p->g0<=p->g1;
    int64_t end = hasGpu && p->g1>p->e ? p->g1 : p->e, start;
    if( first ){
      start = hasGpu && p->g0>=p->e ? p->g0 : p->c;
    }else{
      if( endPrev>end ) end = endPrev;
      start = endPrev>p->c ? endPrev : p->c;
    }
    endPrev = end;
    sqlite3_bind_int64(s, 2, p->rank);
    sqlite3_bind_int64(s, 3, p->step);
    sqlite3_bind_int64(s, 4, start);
    sqlite3_bind_int64(s, 5, end-start);
    sqlite3_bind_text(s, 6, start==p->c && end==p->e ? "cpu" : "gpu", -1,
                      SQLITE_STATIC);
    if( db_step_done(db, s, pErr) ){
      sqlite3_finalize(s);
      return -1;
    }
  }
  sqlite3_finalize(s);
  return 0;
}

int derive_step_bound(sqlite3 *db, int64_t runId, const TraceSpans *pSpans,
                      PfError *pErr){
  int n, rc;
  BoundStep *a = load_steps(db, runId, &n, pErr);
  if( n<0 ) return -1;
  if( n==0 ) return 0;
  add_gpu(pSpans, a, n);
  sort_rank_time(a, (size_t)n);
  rc = write_bounds(db, runId, a, n, pErr);
  free(a);
  return rc;
}
