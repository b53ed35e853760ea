/*
** derive_trace.c — sweeps and summaries over a freshly loaded run.
**
** Pipeline position: "derive" + "index", run by ingest.c inside the ingest
** transaction after every file of the run is loaded.  Order matters:
**   1. indexes (created after the bulk load);
**   2. steps from ProfilerStep#N annotations;
**   3. GPU rows without a step get the step holding their own start (the
**      linkage itself is the in-stream linker's: link_trace.c, fed by the
**      parser or, for a file it could not link in one pass, by the stored
**      rows: trace_relink.c);
**   4. GPU sweep per (rank, device): busy union, idle gaps, comm_overlap
**      (NCCL vs. other kernels); gap-detected steps when the rank had no
**      ProfilerStep annotations;
**   5. wall-time sweep per rank: priority classes per step.
** Sweeps 4 and 5 take their intervals from trace_spans.c (kept by the
** writer while loading) when it has them, else from the rows read back in
** time order (SQLite sorts them: no time-ordered index is kept).
** The GPU activity summary per name (gpu_op_summary) is totalled by the
** loader while inserting (load_trace_summary) and is there before this
** runs.
** Memory use is bounded by the deepest op stack and the number of steps,
** never by the number of events (rows stream out of SQLite in order), plus
** for sweeps over kept intervals a sorted copy of one rank's, within the
** store's cap.
*/
#include "trace/derive_trace.h"
#include "trace/trace_args.h"
#include "core/db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ helpers */

int derive_bulk_indexes(sqlite3 *db, const char *zGroup, PfError *pErr){
  sqlite3_stmt *q = db_prepare(db,
    "SELECT name, ddl FROM bulk_index WHERE grp=?1 ORDER BY seq", pErr);
  int rc, timing = getenv("PROFAN_TIMING")!=NULL;
  if( q==NULL ) return -1;
  sqlite3_bind_text(q, 1, zGroup, -1, SQLITE_STATIC);
  while( (rc = sqlite3_step(q))==SQLITE_ROW ){
    double t0 = timing ? util_now_ms() : 0;
    /* the ddl runs while q is still open: a CREATE INDEX on another table
    ** does not disturb the read of bulk_index */
    if( db_exec(db, (const char*)sqlite3_column_text(q, 1), pErr) ){
      sqlite3_finalize(q);
      return -1;
    }
    if( timing ){
      fprintf(stderr, "profan:   index %-26s %6.1f ms\n",
              (const char*)sqlite3_column_text(q, 0), util_now_ms()-t0);
    }
  }
  if( rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "indexes: %s", sqlite3_errmsg(db));
    sqlite3_finalize(q);
    return -1;
  }
  sqlite3_finalize(q);
  return 0;
}

int derive_trace_indexes(sqlite3 *db, PfError *pErr){
  return derive_bulk_indexes(db, "trace", pErr);
}

/* ------------------------------------------------------------- steps */

typedef struct Step { int64_t rank, step, ts, end; } Step;

typedef struct StepList {
  Step *a;
  int n, nAlloc;
} StepList;

static void steps_add(StepList *p, int64_t rank, int64_t step, int64_t ts,
                      int64_t end){
  if( p->n==p->nAlloc ){
    p->nAlloc = p->nAlloc ? p->nAlloc*2 : 64;
    p->a = xrealloc(p->a, p->nAlloc*sizeof(Step));
  }
  p->a[p->n].rank = rank;
  p->a[p->n].step = step;
  p->a[p->n].ts = ts;
  p->a[p->n].end = end;
  p->n++;
}

/* Load the run's steps ordered by (rank, ts). */
static int steps_load(sqlite3 *db, int64_t runId, StepList *p, PfError *pErr){
  sqlite3_stmt *s = db_prepare(db,
    "SELECT rank, step, ts, ts+dur FROM step WHERE run_id=?1 ORDER BY rank, ts",
    pErr);
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, runId);
  p->n = 0;
  while( sqlite3_step(s)==SQLITE_ROW ){
    steps_add(p, sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1),
              sqlite3_column_int64(s, 2), sqlite3_column_int64(s, 3));
  }
  sqlite3_finalize(s);
  return 0;
}

/* Index of the first step of rank in p (p sorted by rank, ts), or p->n. */
static int steps_first(const StepList *p, int64_t rank){
  int lo = 0, hi = p->n;
  while( lo<hi ){
    int mid = (lo+hi)/2;
    if( p->a[mid].rank<rank ) lo = mid+1; else hi = mid;
  }
  return lo;
}

/* Step number containing time t on rank, or -1.  Binary search. */
static int64_t steps_find(const StepList *p, int64_t rank, int64_t t){
  int lo = steps_first(p, rank), hi = rank<INT64_MAX ? steps_first(p, rank+1)
                                                     : p->n;
  while( lo<hi ){
    int mid = (lo+hi)/2;
    if( p->a[mid].ts<=t ) lo = mid+1; else hi = mid;
  }
  lo--;
  if( lo>=0 && p->a[lo].rank==rank && p->a[lo].ts<=t && t<p->a[lo].end ){
    return p->a[lo].step;
  }
  return -1;
}

/*
** Steps from ProfilerStep#N, in every trace generation (first occurrence
** per rank and number wins):
**   1. the CPU side: user_annotation ranges (2022+) and ops of category
**      Operator / cpu_op (2021: the trace loader notes their ids in
**      temp.step_op, so cpu_op is not scanned): source 'ProfilerStep';
**   2. for ranks with none of those, the GPU side's gpu_user_annotation
**      ProfilerStep#N ranges: source 'gpu ProfilerStep'.
** Ranks with neither get steps from idle gaps later (derive_gap_steps).
*/
static int derive_steps(sqlite3 *db, int64_t runId, PfError *pErr){
  sqlite3_stmt *pSel, *pIns;
  int rc = 0;
  if( db_exec(db,
     db_statement("derive-trace-create-step-op"), pErr) ) return -1;
  pSel = db_prepare(db,
    db_statement("derive-trace-select-annotation"), pErr);
  if( pSel==NULL ) return -1;
  pIns = db_prepare(db,
    db_statement("derive-trace-insert-steps"), pErr);
  if( pIns==NULL ){ sqlite3_finalize(pSel); return -1; }
  sqlite3_bind_int64(pSel, 1, runId);
  while( sqlite3_step(pSel)==SQLITE_ROW ){
    int64_t n = trace_args_step_number(
                  (const char*)sqlite3_column_text(pSel, 2));
    if( n<0 ) continue;
    sqlite3_bind_int64(pIns, 1, runId);
    sqlite3_bind_int64(pIns, 2, sqlite3_column_int64(pSel, 1));
    sqlite3_bind_int64(pIns, 3, n);
    sqlite3_bind_int64(pIns, 4, sqlite3_column_int64(pSel, 3));
    sqlite3_bind_int64(pIns, 5, sqlite3_column_int64(pSel, 4));
    sqlite3_bind_text(pIns, 6, sqlite3_column_int(pSel, 0) ? "gpu ProfilerStep"
                      : "ProfilerStep", -1, SQLITE_STATIC);
    if( db_step_done(db, pIns, pErr) ){ rc = -1; break; }
  }
  sqlite3_finalize(pSel);
  sqlite3_finalize(pIns);
  if( rc==0 && db_exec(db, "DELETE FROM temp.step_op", pErr) ) rc = -1;
  return rc;
}

/* A run of consecutive rowids that get the same step (-1: NULL). */
typedef struct StepRun { int64_t first, last, step; } StepRun;

/* Runs gathered by one read of the rows before they are written: the
** read ends there and goes on after the writes (a table is never written
** while a read of it is open), so memory stays at this many runs. */
#define STEP_RUNS_MAX 4096

/* The steps of one table's stepless rows being given: its two
** statements, prepared once for all its rowid ranges, and the runs read
** and not yet written. */
typedef struct StepFill {
  sqlite3_stmt *pSel;       /* derive-trace-stepless-rows */
  sqlite3_stmt *pUpd;       /* derive-trace-set-step */
  StepRun *a;               /* STEP_RUNS_MAX runs */
  int n;
  int final;                /* 1: no step comes later (gap steps) */
  int64_t nLeft;            /* pending rows left for the gap steps */
} StepFill;

/* Write the runs read so far.  Returns 0 or -1. */
static int step_fill_write(sqlite3 *db, StepFill *f, PfError *pErr){
  for(int i=0; i<f->n; i++){
    sqlite3_bind_int64(f->pUpd, 1, f->a[i].first);
    sqlite3_bind_int64(f->pUpd, 2, f->a[i].last);
    if( f->a[i].step<0 ) sqlite3_bind_null(f->pUpd, 3);
    else sqlite3_bind_int64(f->pUpd, 3, f->a[i].step);
    if( db_step_done(db, f->pUpd, pErr) ) return -1;
  }
  f->n = 0;
  return 0;
}

/* 1 when rank has a step in p. */
static int steps_has_rank(const StepList *p, int64_t rank){
  int i = steps_first(p, rank);
  return i<p->n && p->a[i].rank==rank;
}

/* The rows with rowids [lo, hi] and no step (NULL, or TRACE_STEP_PENDING
** as written) get the step holding their own start (steps_find), where
** there is one; a kernel's time counts in that step (pTot, when not
** NULL).  A pending row in no step gets NULL, unless its rank has no step
** yet and this is not the final pass (the gap steps may hold it: it is
** counted in f->nLeft).  One read of the rows in rowid order; the rows
** given one step one after another are written by one UPDATE of their
** rowid range, after the read. */
static int gpu_steps_run(sqlite3 *db, StepFill *f, const StepList *pS,
                         int64_t lo, int64_t hi, TraceTotals *pTot,
                         PfError *pErr){
  sqlite3_stmt *s = f->pSel;
  int rc = SQLITE_DONE;
  while( lo<=hi && rc==SQLITE_DONE ){
    sqlite3_bind_int64(s, 1, lo);
    sqlite3_bind_int64(s, 2, hi);
    lo = hi + 1;
    while( (rc = sqlite3_step(s))==SQLITE_ROW ){
      StepRun *r = f->n>0 ? &f->a[f->n-1] : NULL;
      int64_t id = sqlite3_column_int64(s, 0);
      int64_t rank = sqlite3_column_int64(s, 1);
      int64_t st = steps_find(pS, rank, sqlite3_column_int64(s, 2));
      if( st<0 ){
        if( sqlite3_column_type(s, 4)==SQLITE_NULL ) continue;
        if( !f->final && !steps_has_rank(pS, rank) ){ f->nLeft++; continue; }
      }
      if( r && r->last==id-1 && r->step==st ){
        r->last = id;
      }else if( f->n==STEP_RUNS_MAX ){
        lo = id;                    /* read on from here after the writes */
        rc = SQLITE_DONE;
        break;
      }else{
        r = &f->a[f->n++];
        r->first = r->last = id;
        r->step = st;
      }
      if( pTot && st>=0 ){
        trace_totals_step_add(pTot, rank, st, sqlite3_column_int64(s, 3));
      }
    }
    sqlite3_reset(s);
    if( rc==SQLITE_DONE && step_fill_write(db, f, pErr) ) return -1;
  }
  if( rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}

/* A statement of statements/NAME.sql for table zTab, or NULL (pErr). */
static sqlite3_stmt *prepare_for(sqlite3 *db, const char *zName,
                                 const char *zTab, PfError *pErr){
  char *z = sqlite3_mprintf(db_statement(zName), zTab);
  sqlite3_stmt *s = db_prepare(db, z, pErr);
  sqlite3_free(z);
  return s;
}

/* GPU rows that went in without a step (no launch, or a launch outside
** every step, or steps found by gap detection) get the step containing
** their own start: only the rowids the totals noted (trace_totals.h).
** Not final (the gap steps come after): the pending rows of ranks without
** a step stay pending, *pnLeft counts them (with no step at all: 1 when
** there are stepless rows).  Final: every pending row gets its step or
** NULL. */
static int derive_gpu_steps(sqlite3 *db, const StepList *pSteps,
                            TraceTotals *pTot, int final, int64_t *pnLeft,
                            PfError *pErr){
  StepFill f;
  int rc = 0;
  int64_t lo, hi;
  *pnLeft = 0;
  if( pSteps->n==0 && !final ){
    *pnLeft = trace_totals_stepless(pTot, 1, 0, &lo, &hi)
              || trace_totals_stepless(pTot, 0, 0, &lo, &hi);
    return 0;
  }
  f.a = xmalloc(STEP_RUNS_MAX*sizeof(StepRun));
  f.final = final;
  f.nLeft = 0;
  for(int k=0; k<2 && rc==0; k++){
    const char *zTab = k==0 ? "kernel" : "gpu_mem_op";
    if( !trace_totals_stepless(pTot, k==0, 0, &lo, &hi) ) continue;
    f.n = 0;
    f.pSel = prepare_for(db, "derive-trace-stepless-rows", zTab, pErr);
    f.pUpd = f.pSel ? prepare_for(db, "derive-trace-set-step", zTab, pErr)
                    : NULL;
    if( f.pUpd==NULL ) rc = -1;
    for(int i=0; rc==0 && trace_totals_stepless(pTot, k==0, i, &lo, &hi);
        i++){
      rc = gpu_steps_run(db, &f, pSteps, lo, hi, k==0 ? pTot : NULL, pErr);
    }
    sqlite3_finalize(f.pSel);
    sqlite3_finalize(f.pUpd);
  }
  free(f.a);
  *pnLeft = f.nLeft;
  return rc;
}

/* ---------------------------------------------------------- GPU sweep */

#define MAX_GAPS 50

typedef struct Gap { int64_t ts, dur, before, after; } Gap;

typedef struct DevState {
  int64_t rank, device;
  int64_t first, busyStart, busyEnd, busy;
  int64_t kernelNs, memcpyNs, memsetNs;
  int64_t nGaps, idle, largest;
  int64_t lastName;             /* name of the activity ending busyEnd */
  Gap aGap[MAX_GAPS];           /* min-heap on dur */
  int nGap;
  int active;
} DevState;

static void gap_push(DevState *d, Gap g){
  int i;
  if( d->nGap==MAX_GAPS ){
    if( g.dur<=d->aGap[0].dur ) return;
    /* replace the root and sift down */
    i = 0;
    d->aGap[0] = g;
    for(;;){
      int l = 2*i+1, r = l+1, m = i;
      if( l<d->nGap && d->aGap[l].dur<d->aGap[m].dur ) m = l;
      if( r<d->nGap && d->aGap[r].dur<d->aGap[m].dur ) m = r;
      if( m==i ) break;
      Gap t = d->aGap[i]; d->aGap[i] = d->aGap[m]; d->aGap[m] = t;
      i = m;
    }
    return;
  }
  i = d->nGap++;
  d->aGap[i] = g;
  while( i>0 ){
    int par = (i-1)/2;
    if( d->aGap[par].dur<=d->aGap[i].dur ) break;
    Gap t = d->aGap[i]; d->aGap[i] = d->aGap[par]; d->aGap[par] = t;
    i = par;
  }
}

/* Disjoint intervals in start order, built from intervals given in start
** order (ties in any order). */
typedef struct Spans {
  int64_t *a;               /* pairs: start, end */
  int n, cap;               /* pairs used / allocated */
  int64_t total;            /* covered length */
} Spans;

static void spans_add(Spans *s, int64_t b, int64_t e){
  if( e<b ) e = b;
  if( s->n>0 && b<=s->a[2*s->n-1] ){
    if( e>s->a[2*s->n-1] ){
      s->total += e - s->a[2*s->n-1];
      s->a[2*s->n-1] = e;
    }
    return;
  }
  if( s->n==s->cap ){
    s->cap = s->cap ? s->cap*2 : 256;
    s->a = xrealloc(s->a, (size_t)s->cap*2*sizeof(int64_t));
  }
  s->a[2*s->n] = b;
  s->a[2*s->n+1] = e;
  s->n++;
  s->total += e - b;
}

/* Length of the intersection of two disjoint sorted span lists. */
static int64_t spans_overlap(const Spans *x, const Spans *y){
  int i = 0, j = 0;
  int64_t tot = 0;
  while( i<x->n && j<y->n ){
    int64_t b = x->a[2*i] > y->a[2*j] ? x->a[2*i] : y->a[2*j];
    int64_t e = x->a[2*i+1] < y->a[2*j+1] ? x->a[2*i+1] : y->a[2*j+1];
    if( e>b ) tot += e - b;
    if( x->a[2*i+1] < y->a[2*j+1] ) i++; else j++;
  }
  return tot;
}

/* Communication vs. computation kernels of the device being swept, for
** comm_overlap (see 007-comm.sql). */
typedef struct Overlap {
  Spans comm, comp;
  int64_t nComm, nKernel;
  sqlite3_stmt *pIns;
} Overlap;

/* Write one device's totals and gaps, and its comm_overlap row when it ran
** kernels. */
static int dev_flush(sqlite3 *db, int64_t runId, DevState *d,
                     sqlite3_stmt *pBusy, sqlite3_stmt *pGap,
                     const StepList *pSteps, Overlap *pOv, PfError *pErr){
  if( !d->active ) return 0;
  if( pOv->nKernel>0 ){
    sqlite3_stmt *s = pOv->pIns;
    int64_t ov = spans_overlap(&pOv->comm, &pOv->comp);
    sqlite3_bind_int64(s, 1, runId);
    sqlite3_bind_int64(s, 2, d->rank);
    sqlite3_bind_int64(s, 3, d->device);
    sqlite3_bind_int64(s, 4, pOv->nComm);
    sqlite3_bind_int64(s, 5, pOv->comm.total);
    sqlite3_bind_int64(s, 6, pOv->comp.total);
    sqlite3_bind_int64(s, 7, ov);
    sqlite3_bind_int64(s, 8, pOv->comm.total + pOv->comp.total - ov);
    if( db_step_done(db, s, pErr) ) return -1;
  }
  pOv->comm.n = pOv->comp.n = 0;
  pOv->comm.total = pOv->comp.total = 0;
  pOv->nComm = pOv->nKernel = 0;
  d->busy += d->busyEnd - d->busyStart;
  sqlite3_bind_int64(pBusy, 1, runId);
  sqlite3_bind_int64(pBusy, 2, d->rank);
  sqlite3_bind_int64(pBusy, 3, d->device);
  sqlite3_bind_int64(pBusy, 4, d->first);
  sqlite3_bind_int64(pBusy, 5, d->busyEnd);
  sqlite3_bind_int64(pBusy, 6, d->busy);
  sqlite3_bind_int64(pBusy, 7, d->kernelNs);
  sqlite3_bind_int64(pBusy, 8, d->memcpyNs);
  sqlite3_bind_int64(pBusy, 9, d->memsetNs);
  sqlite3_bind_int64(pBusy, 10, d->nGaps);
  sqlite3_bind_int64(pBusy, 11, d->idle);
  sqlite3_bind_int64(pBusy, 12, d->largest);
  if( db_step_done(db, pBusy, pErr) ) return -1;
  for(int i=0; i<d->nGap; i++){
    int64_t st = steps_find(pSteps, d->rank, d->aGap[i].ts);
    sqlite3_bind_int64(pGap, 1, runId);
    sqlite3_bind_int64(pGap, 2, d->rank);
    sqlite3_bind_int64(pGap, 3, d->device);
    sqlite3_bind_int64(pGap, 4, d->aGap[i].ts);
    sqlite3_bind_int64(pGap, 5, d->aGap[i].dur);
    sqlite3_bind_int64(pGap, 6, d->aGap[i].before);
    sqlite3_bind_int64(pGap, 7, d->aGap[i].after);
    db_bind_int_or_null(pGap, 8, st>=0, st);
    if( db_step_done(db, pGap, pErr) ) return -1;
  }
  return 0;
}

/* The GPU sweep over one run: rows come in (rank, device, ts) order. */
typedef struct GpuSweep {
  sqlite3 *db;
  int64_t runId;
  const StepList *pSteps;
  sqlite3_stmt *pBusy, *pGap;
  const int64_t *aComm;      /* the run's communication kernel names */
  int nComm;
  DevState d;
  Overlap ov;
  PfError *pErr;
} GpuSweep;

/* One GPU row; kind: 0 compute kernel, 3 NCCL/RCCL kernel, 1 memcpy,
** 2 memset.  Returns 0 or -1 with pErr set. */
static int gpu_feed(GpuSweep *g, int64_t rank, int64_t dev, int64_t ts,
                    int64_t dur, int64_t name, int kind){
  DevState *d = &g->d;
  Overlap *ov = &g->ov;
  if( !d->active || rank!=d->rank || dev!=d->device ){
    if( dev_flush(g->db, g->runId, d, g->pBusy, g->pGap, g->pSteps, ov,
                  g->pErr) ){
      return -1;
    }
    memset(d, 0, sizeof(*d));
    d->active = 1;
    d->rank = rank;
    d->device = dev;
    d->first = d->busyStart = ts;
    d->busyEnd = ts+dur;
    d->lastName = name;
  }else if( ts>d->busyEnd ){
    Gap gap;
    gap.ts = d->busyEnd;
    gap.dur = ts - d->busyEnd;
    gap.before = d->lastName;
    gap.after = name;
    gap_push(d, gap);
    d->nGaps++;
    d->idle += gap.dur;
    if( gap.dur>d->largest ) d->largest = gap.dur;
    d->busy += d->busyEnd - d->busyStart;
    d->busyStart = ts;
    d->busyEnd = ts+dur;
    d->lastName = name;
  }else if( ts+dur>d->busyEnd ){
    d->busyEnd = ts+dur;
    d->lastName = name;
  }
  if( kind==0 || kind==3 ){
    d->kernelNs += dur;
    ov->nKernel++;
    if( kind==3 ){ spans_add(&ov->comm, ts, ts+dur); ov->nComm++; }
    else spans_add(&ov->comp, ts, ts+dur);
  }
  else if( kind==1 ) d->memcpyNs += dur;
  else d->memsetNs += dur;
  return 0;
}

/* The GPU rows from the spans kept while loading. */
static int gpu_rows_spans(GpuSweep *g, const TraceSpans *pSpans){
  int nRank = 0, rc = 0;
  int64_t *aRank = trace_spans_ranks(pSpans, &nRank);
  for(int r=0; r<nRank && rc==0; r++){
    size_t n;
    SpanGpu *a = trace_spans_rank_gpu(pSpans, aRank[r], &n);
    for(size_t i=0; i<n && rc==0; i++){
      int kind = a[i].kind==SPAN_MEMCPY ? 1 : a[i].kind==SPAN_MEMSET ? 2
               : util_id_in(g->aComm, g->nComm, a[i].name) ? 3 : 0;
      rc = gpu_feed(g, aRank[r], a[i].device, a[i].ts, a[i].dur, a[i].name,
                    kind);
    }
    free(a);
  }
  free(aRank);
  return rc;
}

/* GPU busy time, idle gaps and comm/compute overlap per (rank, device),
** from the spans kept of the rows (trace_keep.h); aComm: the run's
** communication kernel names (statements/comm-kernel-names.sql). */
static int derive_gpu_busy(sqlite3 *db, int64_t runId, const StepList *pSteps,
                           const TraceSpans *pSpans, const int64_t *aComm,
                           int nComm, PfError *pErr){
  GpuSweep g;
  int rc = 0;
  memset(&g, 0, sizeof(g));
  g.db = db;
  g.runId = runId;
  g.pSteps = pSteps;
  g.aComm = aComm;
  g.nComm = nComm;
  g.pErr = pErr;
  g.pBusy = db_prepare(db,
    "INSERT INTO gpu_busy VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12)",
    pErr);
  g.pGap = db_prepare(db,
    "INSERT INTO gpu_gap VALUES(?1,?2,?3,?4,?5,?6,?7,?8)", pErr);
  g.ov.pIns = db_prepare(db,
    db_statement("derive-trace-derive-gpu-busy"), pErr);
  if( g.pBusy==NULL || g.pGap==NULL || g.ov.pIns==NULL ){
    rc = -1;
  }else{
    rc = gpu_rows_spans(&g, pSpans);
    if( rc==0 && dev_flush(db, runId, &g.d, g.pBusy, g.pGap, pSteps, &g.ov,
                           pErr) ) rc = -1;
  }
  free(g.ov.comm.a);
  free(g.ov.comp.a);
  sqlite3_finalize(g.ov.pIns);
  sqlite3_finalize(g.pBusy);
  sqlite3_finalize(g.pGap);
  return rc;
}

/* The first start and last end of rank's CPU ops, from the top-level ops
** kept in pSpans (they enclose every op: the linker makes an op that sticks
** out of its parent a sibling).  0 when the rank has none. */
static int spans_cpu_range(const TraceSpans *pSpans, int64_t rank,
                           int64_t *pT0, int64_t *pT1){
  size_t n = 0;
  Span *a = trace_spans_rank_cpu(pSpans, rank, SPAN_CPU, &n);
  if( n==0 ){ free(a); return 0; }
  *pT0 = a[0].ts;
  *pT1 = a[0].end;
  for(size_t i=1; i<n; i++) if( a[i].end>*pT1 ) *pT1 = a[i].end;
  free(a);
  return 1;
}

/*
** Ranks with no ProfilerStep annotation: split their GPU timeline at idle
** gaps of at least max(1 ms, half the largest gap); with no such gap the
** whole profiled window is one step.  CPU-only ranks get one step spanning
** their CPU ops (from the spans).  Returns the number of ranks handled
** this way.
*/
static int derive_gap_steps(sqlite3 *db, int64_t runId,
                            const TraceSpans *pSpans, int *pnRanks,
                            PfError *pErr){
  sqlite3_stmt *pRank, *pGaps, *pIns;
  int rc = 0;
  *pnRanks = 0;
  /* only the ranks without steps are read (usually none) */
  pRank = db_prepare(db, db_statement("derive-trace-nostep"), pErr);
  pGaps = db_prepare(db,
    db_statement("derive-trace-select-gpu-gap"), pErr);
  pIns = db_prepare(db,
    db_statement("derive-trace-insert-gap-steps"), pErr);
  if( pRank==NULL || pGaps==NULL || pIns==NULL ){ rc = -1; goto done; }
  sqlite3_bind_int64(pRank, 1, runId);
  while( sqlite3_step(pRank)==SQLITE_ROW ){
    int64_t rank = sqlite3_column_int64(pRank, 0);
    int64_t t = sqlite3_column_int64(pRank, 1);
    int64_t tEnd = sqlite3_column_int64(pRank, 2);
    int64_t n = 0, c0, c1;
    int hasGpu = sqlite3_column_type(pRank, 1)!=SQLITE_NULL;
    if( spans_cpu_range(pSpans, rank, &c0, &c1) ){
      if( !hasGpu || c0<t ) t = c0;
      if( !hasGpu || c1>tEnd ) tEnd = c1;
    }else if( !hasGpu ){
      continue;                 /* neither GPU rows nor CPU ops */
    }
    (*pnRanks)++;
    sqlite3_bind_int64(pGaps, 1, runId);
    sqlite3_bind_int64(pGaps, 2, rank);
    for(;;){
      int more = sqlite3_step(pGaps)==SQLITE_ROW;
      int64_t gTs = more ? sqlite3_column_int64(pGaps, 0) : tEnd;
      int64_t gDur = more ? sqlite3_column_int64(pGaps, 1) : 0;
      if( gTs>t ){
        sqlite3_bind_int64(pIns, 1, runId);
        sqlite3_bind_int64(pIns, 2, rank);
        sqlite3_bind_int64(pIns, 3, n++);
        sqlite3_bind_int64(pIns, 4, t);
        sqlite3_bind_int64(pIns, 5, gTs + gDur - t);
        if( db_step_done(db, pIns, pErr) ){ rc = -1; goto done; }
      }
      t = gTs + gDur;
      if( !more ) break;
    }
    sqlite3_reset(pGaps);
  }
done:
  sqlite3_finalize(pRank);
  sqlite3_finalize(pGaps);
  sqlite3_finalize(pIns);
  return rc;
}

/* ---------------------------------------------------- wall-time sweep */

/* Priority classes, highest first. */
enum { C_KERNEL, C_MEMCPY, C_MEMSET, C_COMM, C_RUNTIME, C_CPU, C_IDLE, C_N };
static const char *azClass[C_N] = {
  "kernel", "memcpy", "memset", "comm", "runtime", "cpu", "idle"};

typedef struct WallSweep {
  int64_t rank;
  int stepLo, stepHi;        /* this rank's steps in the StepList */
  int iStep;                 /* cursor */
  int64_t (*aTot)[C_N];      /* per step slot (index nSteps = outside) */
  int nSlot;
  int64_t tLast;             /* end of the last event seen */
} WallSweep;

/* Add span [a, b) of class c, split at step boundaries. */
static void wall_add(WallSweep *w, const StepList *pS, int64_t a, int64_t b,
                     int c){
  while( a<b ){
    int i = w->iStep;
    while( i<w->stepHi && pS->a[i].end<=a ) i++;
    w->iStep = i;
    if( i<w->stepHi && pS->a[i].ts<=a ){
      int64_t e = b<pS->a[i].end ? b : pS->a[i].end;
      w->aTot[i - w->stepLo][c] += e - a;
      a = e;
    }else{
      int64_t e = (i<w->stepHi && pS->a[i].ts<b) ? pS->a[i].ts : b;
      w->aTot[w->nSlot-1][c] += e - a;
      a = e;
    }
  }
}

static int wall_flush(sqlite3 *db, int64_t runId, WallSweep *w,
                      const StepList *pS, sqlite3_stmt *pIns, PfError *pErr){
  for(int s=0; s<w->nSlot; s++){
    for(int c=0; c<C_N; c++){
      int64_t v = w->aTot[s][c];
      int outside = s==w->nSlot-1;
      if( v==0 && (outside || c==C_IDLE) ) continue;
      sqlite3_bind_int64(pIns, 1, runId);
      sqlite3_bind_int64(pIns, 2, w->rank);
      if( outside ) sqlite3_bind_null(pIns, 3);
      else sqlite3_bind_int64(pIns, 3, pS->a[w->stepLo+s].step);
      sqlite3_bind_text(pIns, 4, azClass[c], -1, SQLITE_STATIC);
      sqlite3_bind_int64(pIns, 5, v);
      if( db_step_done(db, pIns, pErr) ) return -1;
    }
  }
  return 0;
}

/* End of a rank: steps that go on after the last event end idle; then
** write the totals. */
static int wall_end(sqlite3 *db, int64_t runId, WallSweep *w,
                    const StepList *pS, int64_t tLast, sqlite3_stmt *pIns,
                    PfError *pErr){
  int64_t tEnd = tLast;
  for(int i=w->stepLo; i<w->stepHi; i++){
    if( pS->a[i].end>tEnd ) tEnd = pS->a[i].end;
  }
  if( tEnd>tLast ) wall_add(w, pS, tLast, tEnd, C_IDLE);
  return wall_flush(db, runId, w, pS, pIns, pErr);
}

static void wall_start(WallSweep *w, const StepList *pS, int64_t rank){
  free(w->aTot);
  w->rank = rank;
  w->stepLo = steps_first(pS, rank);
  w->stepHi = w->stepLo;
  while( w->stepHi<pS->n && pS->a[w->stepHi].rank==rank ) w->stepHi++;
  w->iStep = w->stepLo;
  w->nSlot = w->stepHi - w->stepLo + 1;
  w->aTot = xcalloc((size_t)w->nSlot, sizeof(*w->aTot));
}

/*
** One priority class's intervals for one rank, in start order, merged on
** the fly into disjoint busy segments.
*/
typedef struct ClassCursor {
  Span *a;                 /* the class's spans of the rank, sorted */
  size_t n, i;
  int hasNext;             /* a row is waiting in (nextS, nextE) */
  int64_t nextS, nextE;
  int live;                /* (s, e) is the current segment */
  int64_t s, e;
} ClassCursor;

static void cc_pull(ClassCursor *c){
  c->hasNext = c->i<c->n;
  if( c->hasNext ){
    c->nextS = c->a[c->i].ts;
    c->nextE = c->a[c->i].end;
    c->i++;
  }
}

/* Load the next disjoint segment into (s, e); live = 0 at the end. */
static void cc_next_segment(ClassCursor *c){
  if( !c->hasNext ){ c->live = 0; return; }
  c->live = 1;
  c->s = c->nextS;
  c->e = c->nextE;
  cc_pull(c);
  while( c->hasNext && c->nextS<=c->e ){
    if( c->nextE>c->e ) c->e = c->nextE;
    cc_pull(c);
  }
}

static void cc_start(ClassCursor *c){
  c->i = 0;
  cc_pull(c);
  cc_next_segment(c);
}

/* The wall-time sweep of one rank: merge the classes' segments. */
static void wall_rank(WallSweep *w, const StepList *pS, ClassCursor *aC){
  int64_t t = INT64_MAX, tFirst;
  for(int k=0; k<C_IDLE; k++){
    if( aC[k].live && aC[k].s<t ) t = aC[k].s;
  }
  if( t==INT64_MAX ) return;                 /* no events on this rank */
  tFirst = t;
  if( w->stepHi>w->stepLo && pS->a[w->stepLo].ts<t ){
    wall_add(w, pS, pS->a[w->stepLo].ts, t, C_IDLE);
  }
  for(;;){
    int64_t next = INT64_MAX;
    int top = C_IDLE, any = 0;
    for(int k=0; k<C_IDLE; k++){
      ClassCursor *c = &aC[k];
      while( c->live && c->e<=t ) cc_next_segment(c);
      if( !c->live ) continue;
      any = 1;
      if( c->s<=t ){
        if( top==C_IDLE ) top = k;
        if( c->e<next ) next = c->e;
      }else if( c->s<next ){
        next = c->s;
      }
    }
    if( !any ) break;
    wall_add(w, pS, t, next, top);
    t = next;
  }
  (void)tFirst;
  w->tLast = t;
}

/* Point the cursors at rank's spans from the store, one array per class
** (freed by cc_free_arrays). */
static int gpu_class(const SpanGpu *g, const int64_t *aComm, int nComm){
  return g->kind==SPAN_MEMCPY ? C_MEMCPY : g->kind==SPAN_MEMSET ? C_MEMSET
       : util_id_in(aComm, nComm, g->name) ? C_COMM : C_KERNEL;
}

static void cc_load_spans(ClassCursor *aC, const TraceSpans *pSpans,
                          int64_t rank, const int64_t *aComm, int nComm){
  size_t n, aN[C_RUNTIME] = {0, 0, 0, 0};
  SpanGpu *g = trace_spans_rank_gpu(pSpans, rank, &n);
  for(size_t i=0; i<n; i++) aN[gpu_class(&g[i], aComm, nComm)]++;
  for(int k=0; k<C_RUNTIME; k++){          /* exact sizes: 16 bytes a row */
    aC[k].a = xmalloc((aN[k] ? aN[k] : 1)*sizeof(Span));
    aC[k].n = 0;
  }
  for(size_t i=0; i<n; i++){
    int k = gpu_class(&g[i], aComm, nComm);
    Span *x = &aC[k].a[aC[k].n++];
    x->ts = g[i].ts;
    x->end = g[i].ts + g[i].dur;
  }
  free(g);
  /* sorted by (device, ts): one device's rows are in order already */
  for(int k=0; k<C_RUNTIME; k++) trace_spans_sort(aC[k].a, aC[k].n);
  aC[C_RUNTIME].a = trace_spans_rank_cpu(pSpans, rank, SPAN_RUNTIME,
                                         &aC[C_RUNTIME].n);
  aC[C_CPU].a = trace_spans_rank_cpu(pSpans, rank, SPAN_CPU, &aC[C_CPU].n);
}

static void cc_free_arrays(ClassCursor *aC){
  for(int k=0; k<C_IDLE; k++){
    free(aC[k].a);
    aC[k].a = NULL;
    aC[k].n = 0;
  }
}

/* The wall-time sweep of every rank of the run, over the spans kept of
** the rows; aComm: the run's communication kernel names. */
static int derive_wall(sqlite3 *db, int64_t runId, const StepList *pS,
                       const TraceSpans *pSpans, const int64_t *aComm,
                       int nComm, PfError *pErr){
  ClassCursor aC[C_IDLE];
  sqlite3_stmt *pRank = NULL, *pIns = NULL;
  WallSweep w = {0, 0, 0, 0, NULL, 0, 0};
  int rc = 0;

  memset(aC, 0, sizeof(aC));
  pRank = db_prepare(db,
    db_statement("trace-ranks"), pErr);
  pIns = db_prepare(db,
    db_statement("derive-trace-insert-step-time"), pErr);
  if( pRank==NULL || pIns==NULL ){ rc = -1; goto done; }
  sqlite3_bind_int64(pRank, 1, runId);
  while( sqlite3_step(pRank)==SQLITE_ROW ){
    int64_t rank = sqlite3_column_int64(pRank, 0);
    wall_start(&w, pS, rank);
    cc_load_spans(aC, pSpans, rank, aComm, nComm);
    for(int k=0; k<C_IDLE; k++) cc_start(&aC[k]);
    w.tLast = INT64_MIN;
    wall_rank(&w, pS, aC);
    cc_free_arrays(aC);
    if( w.tLast!=INT64_MIN
     && wall_end(db, runId, &w, pS, w.tLast, pIns, pErr) ){
      rc = -1;
      goto done;
    }
  }
done:
  free(w.aTot);
  cc_free_arrays(aC);
  sqlite3_finalize(pRank);
  sqlite3_finalize(pIns);
  return rc;
}

/* ------------------------------------------------------------- driver */

/* With PROFAN_TIMING set, print how long each derive phase took. */
static void phase(const char *zName){
  static double t0 = 0, c0 = 0;
  static int on = -1;
  double t = util_now_ms(), c = util_thread_cpu_ms();
  if( on<0 ) on = getenv("PROFAN_TIMING")!=NULL;
  if( on && zName ) fprintf(stderr, "profan: derive %-12s %8.1f ms, cpu %8.1f"
                            " ms\n", zName, t-t0, c-c0);
  t0 = t;
  c0 = c;
}

int derive_trace_run(sqlite3 *db, int64_t runId, TraceTotals *pTot,
                     const TraceSpans *pSpans, char **pzNote, PfError *pErr){
  StepList steps = {0, 0, 0};
  int64_t *aComm = NULL, nLeft = 0;
  int nGapRanks = 0, nComm = 0;
  int rc = -1;

  *pzNote = NULL;
  phase(NULL);
  if( derive_trace_indexes(db, pErr) ) goto done;
  phase("indexes");
  if( derive_steps(db, runId, pErr) ) goto done;
  if( steps_load(db, runId, &steps, pErr) ) goto done;
  phase("steps");
  if( derive_gpu_steps(db, &steps, pTot, 0, &nLeft, pErr) ) goto done;
  /* gpu_op_summary is already there (trace_totals_write_gpu): the comm
  ** kernels of the sweeps are read from it */
  /* the comm_kernel view (comm_pattern), the one definition shared with
  ** the categories and the collectives; read once for both sweeps (a GLOB
  ** of every pattern over every kernel name: 3 M instructions on the
  ** 8-rank DLRM trace's rank 0) */
  aComm = db_id_set(db, db_statement("comm-kernel-names"), runId, &nComm,
                    pErr);
  if( aComm==NULL
      || derive_gpu_busy(db, runId, &steps, pSpans, aComm, nComm, pErr) ){
    goto done;
  }
  phase("gpu sweep");
  if( derive_gap_steps(db, runId, pSpans, &nGapRanks, pErr) ) goto done;
  if( nGapRanks>0 && steps_load(db, runId, &steps, pErr) ) goto done;
  /* the gap steps to rows that have none; the pending rows left get NULL */
  if( (nGapRanks>0 || nLeft>0)
      && derive_gpu_steps(db, &steps, pTot, 1, &nLeft, pErr) ){
    goto done;
  }
  if( nGapRanks>0 ){
    *pzNote = xasprintf("%d rank%s had no ProfilerStep annotations: steps "
                        "were found by GPU idle-gap detection", nGapRanks,
                        nGapRanks==1 ? "" : "s");
    phase("gap steps");
  }
  if( derive_wall(db, runId, &steps, pSpans, aComm, nComm, pErr) ){
    goto done;
  }
  phase("wall sweep");
  if( trace_spans_check(pSpans, pErr) ) goto done;
  /* the 009 summaries, every step final */
  if( trace_totals_write_summaries(pTot, db, runId, pErr) ) goto done;
  phase("summaries");
  rc = 0;
done:
  free(steps.a);
  free(aComm);
  return rc;
}
