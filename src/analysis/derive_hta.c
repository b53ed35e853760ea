/*
** derive_hta.c — fills hta_critical_path (013-hta-analyses.sql): the
** critical path of every (rank, step) of a run, walked by hta_path.c.
**
** Pipeline position: "derive", after derive_comm_run.  Reads step,
** cpu_op, runtime_call, kernel, gpu_mem_op, annotation (the thread of
** the ProfilerStep ranges), gpu_op_summary and category_rule (kernel
** classes), hta_runtime_role and hta_setting; writes hta_critical_path,
** hta_critical_path_op and, with the rows it has loaded anyway, the
** headline numbers in hta_run_metric (hta_metric.c, derive_hta_metric.c),
** and from the same sweeps the idle intervals, launch-queue changes and
** kernel sequences of schema 094 (derive_hta_series.c) and the overlap
** slices of schema 100 (derive_hta_overlap.c).
** The run's rows are replaced, so it may run again.  The analyses
** themselves are views: nothing else is computed here.
**
** Memory: one run's CPU events and GPU ops (about 48 bytes a row) plus
** the pieces and segments of one rank at a time.
**
** Input: what was kept of the run's trace rows for this pass
** (trace_spans.h: the values their columns got, ranks and times fixed up
** with the files), by the writer or the stored-rows feeder
** (trace_keep.h); never the rows read back (that was half of this pass:
** callgrind, control trace, 103 M of 198 M instructions).
*/
#include "analysis/derive_hta.h"
#include "analysis/hta_path.h"
#include "analysis/derive_hta_metric.h"
#include "analysis/derive_hta_annot.h"
#include "analysis/derive_hta_overlap.h"
#include "analysis/derive_hta_series.h"
#include "core/db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows of one run, sorted by hta_path_sort so each rank is one slice. */
typedef struct HtaRun {
  HpCpu *aCpu; int nCpu, nCpuAlloc;
  HpGpu *aGpu; int nGpu, nGpuAlloc;
} HtaRun;

static int finish(sqlite3 *db, sqlite3_stmt *p, int rc, PfError *pErr){
  if( rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
    sqlite3_finalize(p);
    return -1;
  }
  sqlite3_finalize(p);
  return 0;
}

/* Roles of runtime call names (hta_runtime_role) and their launch queue
** limits (hta_queue_limit), resolved once per name id with
** sqlite3_strglob and cached in an open-addressing table. */
typedef struct Roles {
  char **azPat; int *aRole; int nPat;
  char **azLim; int64_t *aLimit; int nLim;          /* aLimit 0: none */
  int64_t *aKey; signed char *aVal; int nSlot, nUsed;  /* aVal -1: empty */
  int64_t *aQ;                                         /* limit per slot */
  sqlite3_stmt *pText;
} Roles;

static unsigned slot_of(const Roles *r, int64_t key){
  return (unsigned)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 32)
         & (unsigned)(r->nSlot-1);
}

static void roles_free(Roles *r){
  for(int i=0; i<r->nPat; i++) free(r->azPat[i]);
  for(int i=0; i<r->nLim; i++) free(r->azLim[i]);
  free(r->azPat); free(r->aRole);
  free(r->azLim); free(r->aLimit);
  free(r->aKey); free(r->aVal); free(r->aQ);
  sqlite3_finalize(r->pText);
}

static void roles_grow(Roles *r){
  int64_t *aOldK = r->aKey, *aOldQ = r->aQ;
  signed char *aOldV = r->aVal;
  int nOld = r->nSlot;
  r->nSlot = nOld ? 2*nOld : 256;
  r->aKey = xmalloc(sizeof(int64_t)*(size_t)r->nSlot);
  r->aQ = xmalloc(sizeof(int64_t)*(size_t)r->nSlot);
  r->aVal = xmalloc((size_t)r->nSlot);
  memset(r->aVal, -1, (size_t)r->nSlot);
  for(int i=0; i<nOld; i++){
    if( aOldV[i]>=0 ){
      unsigned h = slot_of(r, aOldK[i]);
      while( r->aVal[h]>=0 ) h = (h+1) & (unsigned)(r->nSlot-1);
      r->aKey[h] = aOldK[i];
      r->aVal[h] = aOldV[i];
      r->aQ[h] = aOldQ[i];
    }
  }
  free(aOldK);
  free(aOldQ);
  free(aOldV);
}

static int roles_load(sqlite3 *db, Roles *r, PfError *pErr){
  sqlite3_stmt *p = db_prepare(db,
      db_statement("derive-hta-select-hta-runtime-role"), pErr);
  int rc;
  if( p==NULL ) return -1;
  while( (rc = sqlite3_step(p))==SQLITE_ROW ){
    const char *z = (const char *)sqlite3_column_text(p, 0);
    const char *zRole = (const char *)sqlite3_column_text(p, 1);
    r->azPat = xrealloc(r->azPat, sizeof(char*)*(size_t)(r->nPat+1));
    r->aRole = xrealloc(r->aRole, sizeof(int)*(size_t)(r->nPat+1));
    r->azPat[r->nPat] = xstrdup(z ? z : "");
    r->aRole[r->nPat++] = zRole && strcmp(zRole, "sync")==0 ? HP_SYNC
                        : zRole && strcmp(zRole, "launch")==0 ? HP_LAUNCH
                        : HP_RUNTIME;
  }
  if( finish(db, p, rc, pErr) ) return -1;
  p = db_prepare(db, db_statement("derive-hta-select-hta-queue-limit"), pErr);
  if( p==NULL ) return -1;
  while( (rc = sqlite3_step(p))==SQLITE_ROW ){
    const char *z = (const char *)sqlite3_column_text(p, 0);
    r->azLim = xrealloc(r->azLim, sizeof(char*)*(size_t)(r->nLim+1));
    r->aLimit = xrealloc(r->aLimit, sizeof(int64_t)*(size_t)(r->nLim+1));
    r->azLim[r->nLim] = xstrdup(z ? z : "");
    r->aLimit[r->nLim++] = sqlite3_column_int64(p, 1);
  }
  if( finish(db, p, rc, pErr) ) return -1;
  r->pText = db_prepare(db, "SELECT text FROM string WHERE id=?1", pErr);
  roles_grow(r);
  return r->pText ? 0 : -1;
}

/* Slot of name id `name`, its role and queue limit resolved. */
static unsigned name_slot(Roles *r, int64_t name){
  unsigned h = slot_of(r, name);
  int role = HP_RUNTIME;
  int64_t lim = 0;
  while( r->aVal[h]>=0 ){
    if( r->aKey[h]==name ) return h;
    h = (h+1) & (unsigned)(r->nSlot-1);
  }
  sqlite3_bind_int64(r->pText, 1, name);
  if( sqlite3_step(r->pText)==SQLITE_ROW ){
    const char *z = (const char *)sqlite3_column_text(r->pText, 0);
    for(int i=0; z && i<r->nPat; i++){
      if( sqlite3_strglob(r->azPat[i], z)==0 ){ role = r->aRole[i]; break; }
    }
    for(int i=0; z && i<r->nLim; i++){
      if( sqlite3_strglob(r->azLim[i], z)==0 ){ lim = r->aLimit[i]; break; }
    }
  }
  sqlite3_reset(r->pText);
  r->aKey[h] = name;
  r->aVal[h] = (signed char)role;
  r->aQ[h] = lim;
  if( 2*(++r->nUsed)>r->nSlot ){
    roles_grow(r);
    return name_slot(r, name);
  }
  return h;
}

/* Role of name id `name`: HP_LAUNCH, HP_SYNC or HP_RUNTIME. */
static int role_of(Roles *r, int64_t name){
  return r->aVal[name_slot(r, name)];
}

/* Launch queue limit of call name id `name` (0: none known). */
static int64_t limit_of(Roles *r, int64_t name){
  return r->aQ[name_slot(r, name)];
}

/* Launch calls by runtime_call.id: the run's runtime calls (open
** addressing over aCpu indexes). */
typedef struct Launches {
  const HtaRun *pRun;
  Roles *pRoles;                /* queue limits of the launch calls */
  int64_t *aKey; int *aIdx; unsigned mask;
} Launches;

static unsigned id_slot(int64_t key, unsigned mask){
  return (unsigned)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

static void launches_init(Launches *l, const HtaRun *pRun, Roles *pRoles){
  unsigned n = 16;
  while( n < 2u*(unsigned)pRun->nCpu + 16u ) n *= 2;
  l->pRun = pRun;
  l->pRoles = pRoles;
  l->mask = n-1;
  l->aKey = xmalloc(sizeof(int64_t)*n);
  l->aIdx = xmalloc(sizeof(int)*n);
  for(unsigned i=0; i<n; i++) l->aIdx[i] = -1;
  for(int i=0; i<pRun->nCpu; i++){
    unsigned h;
    if( pRun->aCpu[i].role==HP_CPU_OP ) continue;
    h = id_slot(pRun->aCpu[i].id, l->mask);
    while( l->aIdx[h]>=0 ) h = (h+1) & l->mask;
    l->aKey[h] = pRun->aCpu[i].id;
    l->aIdx[h] = i;
  }
}

static void launches_free(Launches *l){
  free(l->aKey);
  free(l->aIdx);
}

/* Set g's launch call from runtime_call id `rt`. */
static void launch_of(Launches *l, HpGpu *g, int64_t rt){
  unsigned h = id_slot(rt, l->mask);
  g->hasLaunch = 0;
  g->qFull = 0;
  while( l->aIdx[h]>=0 ){
    if( l->aKey[h]==rt ){
      const HpCpu *e = &l->pRun->aCpu[l->aIdx[h]];
      g->hasLaunch = 1;
      g->lts = e->ts;
      g->ltid = e->tid;
      g->rt = rt;
      g->qFull = limit_of(l->pRoles, e->name);
      return;
    }
    h = (h+1) & l->mask;
  }
}

/* GPU ops given their class (pK), then everything sorted (hta_path_sort). */
static void run_finish(HtaRun *pRun, const HtaKlass *pK){
  for(int i=0; i<pRun->nGpu; i++){
    HpGpu *g = &pRun->aGpu[i];
    g->klass = g->cls==HP_KERNEL ? hta_klass_of(pK, g->name) : HK_MEMORY;
  }
  hta_path_sort(pRun->aCpu, pRun->nCpu, pRun->aGpu, pRun->nGpu);
}

static void run_free(HtaRun *p){
  free(p->aCpu);
  free(p->aGpu);
}

static HpCpu *cpu_push(HtaRun *pRun){
  if( pRun->nCpu==pRun->nCpuAlloc ){
    pRun->nCpuAlloc = pRun->nCpuAlloc ? 2*pRun->nCpuAlloc : 1024;
    pRun->aCpu = xrealloc(pRun->aCpu, sizeof(HpCpu)*(size_t)pRun->nCpuAlloc);
  }
  return &pRun->aCpu[pRun->nCpu++];
}

static HpGpu *gpu_push(HtaRun *pRun){
  if( pRun->nGpu==pRun->nGpuAlloc ){
    pRun->nGpuAlloc = pRun->nGpuAlloc ? 2*pRun->nGpuAlloc : 1024;
    pRun->aGpu = xrealloc(pRun->aGpu, sizeof(HpGpu)*(size_t)pRun->nGpuAlloc);
  }
  return &pRun->aGpu[pRun->nGpu++];
}

/* The CPU rows of the store: top-level ops and the runtime calls this pass
** keeps (launches and syncs, and other calls outside every op) into pRun,
** every call into pAll (for launches). */
static void spans_cpu(const TraceSpans *pS, Roles *pRoles, HtaRun *pRun,
                      HtaRun *pAll){
  int64_t rank;
  SpanHtaCpu *aC;
  size_t nC, nG;
  int r;
  for(int i=0; (r = trace_spans_hta_file(pS, i, &rank, &aC, &nC, NULL, &nG));
      i++){
    if( r<0 ) continue;
    for(size_t j=0; j<nC; j++){
      const SpanHtaCpu *c = &aC[j];
      HpCpu e;
      e.rank = rank;
      e.tid = c->tid;
      e.ts = c->ts;
      e.end = c->end;
      e.id = c->id;
      e.name = c->name;
      e.role = c->isCall ? role_of(pRoles, c->name) : HP_CPU_OP;
      if( c->isCall ) *cpu_push(pAll) = e;
      if( e.role==HP_RUNTIME && !c->outside ) continue;
      *cpu_push(pRun) = e;
    }
    free(aC);
  }
}

/* The GPU rows of the store, with their launch calls from pL. */
static void spans_gpu(const TraceSpans *pS, Launches *pL, HtaRun *pRun){
  static const int aCls[3] = { HP_KERNEL, HP_MEMCPY, HP_MEMSET };
  int64_t rank;
  SpanHtaGpu *aG;
  size_t nC, nG;
  int rf;
  for(int i=0; (rf = trace_spans_hta_file(pS, i, &rank, NULL, &nC, &aG, &nG));
      i++){
    if( rf<0 ) continue;
    for(size_t j=0; j<nG; j++){
      const SpanHtaGpu *r = &aG[j];
      HpGpu *g = gpu_push(pRun);
      g->rank = rank;
      g->device = r->device;
      g->stream = r->stream;
      g->ts = r->ts;
      g->end = r->end;
      g->id = r->id;
      g->name = r->name;
      g->cls = aCls[r->cls>=0 && r->cls<3 ? r->cls : 0];
      g->hasLaunch = g->blocked = 0;
      g->lts = g->ltid = g->rt = g->qFull = 0;
      if( r->hasRuntime ) launch_of(pL, g, r->runtimeId);
    }
    free(aG);
  }
}

/* Every CPU event and GPU op of the run from what was kept of its rows
** (trace_keep.h), sorted (hta_path_sort), GPU ops with their class (pK).
** Returns 0 or -1. */
static int load_run_spans(sqlite3 *db, const TraceSpans *pS,
                          const HtaKlass *pK, HtaRun *pRun, PfError *pErr){
  Roles roles;
  Launches l;
  HtaRun all;
  int rc;
  memset(&roles, 0, sizeof(roles));
  memset(&l, 0, sizeof(l));
  memset(&all, 0, sizeof(all));
  rc = roles_load(db, &roles, pErr);
  if( rc==0 ){
    spans_cpu(pS, &roles, pRun, &all);
    launches_init(&l, &all, &roles);
    spans_gpu(pS, &l, pRun);
  }
  roles_free(&roles);
  launches_free(&l);
  run_free(&all);
  if( rc ) return -1;
  run_finish(pRun, pK);
  return 0;
}

/* The rank's main thread: the one with its ProfilerStep ranges, else the
** thread with the most CPU events. */
static int64_t main_tid(sqlite3 *db, int64_t runId, int64_t rank,
                        const HpCpu *a, int n){
  int64_t tid = db_int(db, INT64_MIN,
    db_statement("derive-hta-main-tid"),
    (long long)runId, (long long)rank);
  int best = 0;
  if( tid!=INT64_MIN ) return tid;
  for(int i=0; i<n; ){                  /* a is sorted by tid here */
    int j = i;
    while( j<n && a[j].tid==a[i].tid ) j++;
    if( j-i>best ){ best = j-i; tid = a[i].tid; }
    i = j;
  }
  return tid;
}

/* The two inserts of a step's path. */
typedef struct HtaIns {
  sqlite3_stmt *pRun, *pOp;
  int64_t runId, rank, step;
  const HtaKlass *pK;           /* kernel classes (comm kernels) */
  int64_t aCp[HTA_CP_N];        /* path time per class, all steps */
  HtaTotals tot;                /* headline numbers, all ranks */
  HtaSeries series;             /* one rank's idle intervals, queue */
  HtaSeriesStore *pSeries;      /* ... stored by derive_hta_series.c */
  HtaOverlapStore *pOverlap;    /* its overlap slices (derive_hta_overlap.c) */
  double sweepMs, seriesMs;     /* thread CPU of both (PROFAN_TIMING) */
} HtaIns;

static int seg_on_gpu(int cls){
  return cls==HP_KERNEL || cls==HP_MEMCPY || cls==HP_MEMSET
      || cls==HP_GPU_WAIT;
}

static void bind_key(sqlite3_stmt *p, const HtaIns *k){
  sqlite3_bind_int64(p, 1, k->runId);
  sqlite3_bind_int64(p, 2, k->rank);
  sqlite3_bind_int64(p, 3, k->step);
}

/* One row per run of segments on one lane (a[lo..hi)): class with the
** most time, longest contributor. */
static int store_lane_run(sqlite3 *db, const HtaIns *k, int seq,
                          const HpSeg *a, int lo, int hi, PfError *pErr){
  int64_t aCls[HP_NCLASS] = {0};
  int best = lo, cls = a[lo].cls;
  for(int i=lo; i<hi; i++){
    aCls[a[i].cls] += a[i].dur;
    if( a[i].src && (!a[best].src || a[i].dur>a[best].dur) ) best = i;
  }
  for(int c=0; c<HP_NCLASS; c++) if( aCls[c]>aCls[cls] ) cls = c;
  bind_key(k->pRun, k);
  sqlite3_bind_int(k->pRun, 4, seq);
  sqlite3_bind_text(k->pRun, 5, seg_on_gpu(a[lo].cls) ? "gpu" : "cpu", -1,
                    SQLITE_STATIC);
  sqlite3_bind_int64(k->pRun, 6, a[lo].lane);
  sqlite3_bind_int64(k->pRun, 7, a[lo].ts);
  sqlite3_bind_int64(k->pRun, 8, a[hi-1].ts + a[hi-1].dur - a[lo].ts);
  sqlite3_bind_text(k->pRun, 9, hta_path_class_name(cls), -1, SQLITE_STATIC);
  db_bind_int_or_null(k->pRun, 10, a[best].src!=0, a[best].name);
  sqlite3_bind_int(k->pRun, 11, hi-lo);
  return db_step_done(db, k->pRun, pErr);
}

/* Totals per (class, name) of a step's segments, summed in an
** open-addressing table (a sort of every segment cost more), then
** written; also added to k->aCp. */
static int store_ops(sqlite3 *db, HtaIns *k, const HpSeg *a, int n,
                     PfError *pErr){
  unsigned nSlot = 16, mask;
  int *aFirst, *aCnt, rc = 0;
  int64_t *aNs;
  while( nSlot < 2u*(unsigned)n ) nSlot *= 2;
  mask = nSlot-1;
  aFirst = xmalloc(sizeof(int)*nSlot);
  aCnt = xmalloc(sizeof(int)*nSlot);
  aNs = xmalloc(sizeof(int64_t)*nSlot);
  for(unsigned i=0; i<nSlot; i++) aFirst[i] = -1;
  for(int i=0; i<n; i++){
    int64_t name = a[i].src ? a[i].name : -1;
    unsigned h = (unsigned)((((uint64_t)name<<4) ^ (uint64_t)a[i].cls)
                            * 0x9E3779B97F4A7C15ull >> 32) & mask;
    while( aFirst[h]>=0 ){
      const HpSeg *f = &a[aFirst[h]];
      if( f->cls==a[i].cls && (f->src ? f->name : -1)==name ) break;
      h = (h+1) & mask;
    }
    if( aFirst[h]<0 ){ aFirst[h] = i; aCnt[h] = 0; aNs[h] = 0; }
    aCnt[h]++;
    aNs[h] += a[i].dur;
  }
  for(unsigned h=0; h<nSlot && rc==0; h++){
    const HpSeg *f;
    if( aFirst[h]<0 ) continue;
    f = &a[aFirst[h]];
    k->aCp[f->cls==HP_KERNEL && hta_klass_of(k->pK, f->name)==HK_COMM
           ? HTA_CP_COMM : f->cls] += aNs[h];
    bind_key(k->pOp, k);
    sqlite3_bind_text(k->pOp, 4, hta_path_class_name(f->cls), -1,
                      SQLITE_STATIC);
    db_bind_int_or_null(k->pOp, 5, f->src!=0, f->name);
    sqlite3_bind_int64(k->pOp, 6, aNs[h]);
    sqlite3_bind_int(k->pOp, 7, aCnt[h]);
    rc = db_step_done(db, k->pOp, pErr);
  }
  free(aFirst);
  free(aCnt);
  free(aNs);
  return rc;
}

/* The chain (time order) as lane runs, then totals per (class, name). */
static int store_path(sqlite3 *db, HtaIns *k, const HpSeg *a, int n,
                      PfError *pErr){
  int seq = 0;
  for(int lo=0; lo<n; ){
    int hi = lo+1;
    while( hi<n && a[hi].lane==a[lo].lane
           && seg_on_gpu(a[hi].cls)==seg_on_gpu(a[lo].cls) ) hi++;
    if( store_lane_run(db, k, seq++, a, lo, hi, pErr) ) return -1;
    lo = hi;
  }
  return store_ops(db, k, a, n, pErr);
}

/* Walk and store every step of one rank. */
static int store_rank(sqlite3 *db, HtaIns *k, const HpRank *r,
                      sqlite3_stmt *pSteps, PfError *pErr){
  int rc;
  sqlite3_bind_int64(pSteps, 1, k->runId);
  sqlite3_bind_int64(pSteps, 2, k->rank);
  while( (rc = sqlite3_step(pSteps))==SQLITE_ROW ){
    int64_t t0 = sqlite3_column_int64(pSteps, 1);
    int64_t t1 = t0 + sqlite3_column_int64(pSteps, 2);
    int n = 0;
    HpSeg *a = hta_path_walk(r, t0, t1, sqlite3_column_int(pSteps, 3), &n);
    k->step = sqlite3_column_int64(pSteps, 0);
    rc = store_path(db, k, a, n, pErr);
    free(a);
    if( rc ){
      sqlite3_reset(pSteps);
      return -1;
    }
  }
  sqlite3_reset(pSteps);
  if( rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}


/* One rank: its slices [*piC, ...) and [*piG, ...) of the run's rows. */
static int do_rank(sqlite3 *db, HtaRun *pRun, int *piC, int *piG,
                   int64_t waitNs, HtaIns *k, sqlite3_stmt *pSteps,
                   PfError *pErr){
  int c0 = *piC, g0 = *piG, c1 = c0, g1 = g0, rc;
  HpRank *r;
  /* the lower of the next CPU rank and next GPU rank */
  if( c0<pRun->nCpu
      && (g0>=pRun->nGpu || pRun->aCpu[c0].rank<=pRun->aGpu[g0].rank) ){
    k->rank = pRun->aCpu[c0].rank;
  }else{
    k->rank = pRun->aGpu[g0].rank;
  }
  while( c1<pRun->nCpu && pRun->aCpu[c1].rank==k->rank ) c1++;
  while( g1<pRun->nGpu && pRun->aGpu[g1].rank==k->rank ) g1++;
  /* first: it marks the launches that found a full queue (the walk) */
  k->series.nIdle = k->series.nQueue = k->series.nStream = 0;
  k->series.nSlice = 0;
  {
    double t0 = util_thread_cpu_ms(), t1;
    if( g1>g0 ) hta_metric_rank(pRun->aGpu+g0, g1-g0, &k->tot, &k->series);
    t1 = util_thread_cpu_ms();
    k->sweepMs += t1 - t0;
    rc = hta_series_rank(k->pSeries, k->rank, &k->series,
                         g1>g0 ? pRun->aGpu+g0 : NULL, g1-g0, pErr);
    if( rc==0 ) rc = hta_overlap_rank(k->pOverlap, k->rank, &k->series, pErr);
    k->seriesMs += util_thread_cpu_ms() - t1;
    if( rc ){
      *piC = c1;
      *piG = g1;
      return -1;
    }
  }
  {
    const HpCpu *aC = c1>c0 ? pRun->aCpu+c0 : NULL;  /* no NULL+0 */
    const HpGpu *aG = g1>g0 ? pRun->aGpu+g0 : NULL;
    r = hta_path_rank_init(aC, c1-c0, aG, g1-g0,
                           main_tid(db, k->runId, k->rank, aC, c1-c0), waitNs);
  }
  rc = store_rank(db, k, r, pSteps, pErr);
  hta_path_rank_free(r);
  *piC = c1;
  *piG = g1;
  return rc;
}

int derive_hta_run(sqlite3 *db, int64_t runId, const TraceSpans *pSpans,
                   PfError *pErr){
  HtaRun run;
  HtaIns k;
  HtaKlass klass;
  sqlite3_stmt *pSteps = NULL;
  int iC = 0, iG = 0, rc = -1;
  int64_t waitNs = db_int(db, 30000,
      db_statement("derive-hta-select-hta-setting"));
  memset(&run, 0, sizeof(run));
  memset(&k, 0, sizeof(k));
  memset(&klass, 0, sizeof(klass));
  k.runId = runId;
  k.pK = &klass;
  if( db_exec_run(db, db_statement("derive-hta-delete-hta-critical-path"),
                  runId, pErr) ) return -1;
  if( hta_klass_load(db, runId, &klass, pErr) ) goto done;
  if( load_run_spans(db, pSpans, &klass, &run, pErr) ) goto done;
  pSteps = db_prepare(db, db_statement("derive-hta-select-step"),
                      pErr);
  k.pRun = db_prepare(db,
      db_statement("derive-hta-insert-hta-critical-path"), pErr);
  k.pOp = db_prepare(db,
      db_statement("derive-hta-insert-hta-critical-path-op"), pErr);
  if( pSteps==NULL || k.pRun==NULL || k.pOp==NULL ) goto done;
  k.pSeries = hta_series_open(db, runId, pErr);
  if( k.pSeries==NULL ) goto done;
  k.pOverlap = hta_overlap_open(db, runId, pErr);
  if( k.pOverlap==NULL ) goto done;
  {
    double t1 = util_now_ms();
    if( derive_hta_annot_run(db, runId, run.aGpu, run.nGpu, pErr) ){
      goto done;
    }
    if( getenv("PROFAN_TIMING") ){
      fprintf(stderr, "profan:   hta annotations %14.1f ms\n",
              util_now_ms()-t1);
    }
  }
  while( iC<run.nCpu || iG<run.nGpu ){
    if( do_rank(db, &run, &iC, &iG, waitNs, &k, pSteps, pErr) ) goto done;
  }
  if( getenv("PROFAN_TIMING") ){
    fprintf(stderr, "profan:   hta sweeps cpu %13.1f ms\n"
            "profan:   hta series cpu %13.1f ms\n", k.sweepMs, k.seriesMs);
  }
  if( hta_metric_store(db, runId, &k.tot, k.aCp, pErr) ) goto done;
  rc = 0;
done:
  if( rc && !pErr->set ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
  }
  sqlite3_finalize(pSteps);
  sqlite3_finalize(k.pRun);
  sqlite3_finalize(k.pOp);
  hta_series_close(k.pSeries);
  hta_overlap_close(k.pOverlap);
  hta_series_free(&k.series);
  hta_klass_free(&klass);
  run_free(&run);
  return rc;
}
