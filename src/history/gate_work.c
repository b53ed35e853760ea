/*
** gate_work.c — the work evidence of a step-time check (gate_work.h).
**
** A step time of a few runs' steps carries every stall of the host; the
** kernels of the same steps, matched one to one between the baseline
** and the run (thousands per run), say whether the work itself got
** slower.  The evidence is per step (the total time of the matched
** activities of the step in the run over the baseline), so that the
** gate's paired statistics treat a step whose kernels all moved together
** as one observation, not thousands.
**
** Pipeline position: read side (comparison and history), used by
** history.c.  Reads the kernel and gpu_mem_op rows of two runs (their
** rowid ranges); sorts and matches them in C.
*/
#include "history/gate_work.h"
#include "core/db.h"
#include "core/msort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One GPU activity: its step, its key and its time. */
typedef struct WorkRow {
  int64_t rank, step;
  int64_t name;          /* string id; memcpy/memset names negated */
  uint64_t shape;        /* grid and block, or bytes, hashed */
  int64_t ts, dur;
} WorkRow;

static int cmp_key(const WorkRow *x, const WorkRow *y){
  if( x->rank!=y->rank ) return x->rank<y->rank ? -1 : 1;
  if( x->step!=y->step ) return x->step<y->step ? -1 : 1;
  if( x->name!=y->name ) return x->name<y->name ? -1 : 1;
  if( x->shape!=y->shape ) return x->shape<y->shape ? -1 : 1;
  return 0;
}

static int cmp_row(const WorkRow *x, const WorkRow *y){
  int c = cmp_key(x, y);
  if( c ) return c;
  return x->ts<y->ts ? -1 : x->ts>y->ts;
}
DEFINE_MSORT(sort_rows, WorkRow, cmp_row)

/* A growing array of rows. */
typedef struct WorkRows {
  WorkRow *a;
  int64_t n, nAlloc;
} WorkRows;

/* FNV-1a over the 6 integers of a launch shape. */
static uint64_t shape_hash(sqlite3_stmt *s, int iCol){
  uint64_t h = 1469598103934665603ULL;
  for(int i=0; i<6; i++){
    uint64_t v = (uint64_t)sqlite3_column_int64(s, iCol+i);
    for(int b=0; b<8; b++){
      h ^= (v>>(8*b)) & 0xff;
      h *= 1099511628211ULL;
    }
  }
  return h;
}

/* 1 when step is in a[0..n) (sorted). */
static int has_step(const int64_t *a, int n, int64_t step){
  int lo = 0, hi = n;
  while( lo<hi ){
    int mid = lo+(hi-lo)/2;
    if( a[mid]==step ) return 1;
    if( a[mid]<step ) lo = mid+1; else hi = mid;
  }
  return 0;
}

/* Append the launched rows of run id in table zTab whose step is in
** aStep.  Returns 0 or -1 with pErr set. */
static int load_table(sqlite3 *db, int64_t id, const char *zTab,
                      const char *zShape, int isMem, const int64_t *aStep,
                      int nStep, WorkRows *p, PfError *pErr){
  int empty, rc;
  char *zCols = xasprintf("rank, step, name_id, ts, dur, %s", zShape);
  sqlite3_stmt *s = db_prepare_run_rows(db, zTab, zCols,
      "step IS NOT NULL AND runtime_id IS NOT NULL", id, &empty, pErr);
  free(zCols);
  if( s==NULL ) return empty ? 0 : -1;
  while( (rc = sqlite3_step(s))==SQLITE_ROW ){
    WorkRow *r;
    int64_t step = sqlite3_column_int64(s, 1);
    if( !has_step(aStep, nStep, step) ) continue;
    if( p->n==p->nAlloc ){
      p->nAlloc = p->nAlloc ? 2*p->nAlloc : 1024;
      p->a = xrealloc(p->a, sizeof(WorkRow)*(size_t)p->nAlloc);
    }
    r = &p->a[p->n++];
    r->rank = sqlite3_column_int64(s, 0);
    r->step = step;
    r->name = isMem ? -1-sqlite3_column_int64(s, 2)
                    : sqlite3_column_int64(s, 2);
    r->ts = sqlite3_column_int64(s, 3);
    r->dur = sqlite3_column_int64(s, 4);
    r->shape = shape_hash(s, 5);
  }
  sqlite3_finalize(s);
  if( rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}

/* The rows of run id in the steps, sorted by key then start. */
static int load_rows(sqlite3 *db, int64_t id, const int64_t *aStep,
                     int nStep, WorkRows *p, PfError *pErr){
  memset(p, 0, sizeof(*p));
  if( load_table(db, id, "kernel", "grid_x, grid_y, grid_z, block_x,"
                 " block_y, block_z", 0, aStep, nStep, p, pErr)
      || load_table(db, id, "gpu_mem_op", "bytes, 0, 0, 0, 0, 0", 1, aStep,
                    nStep, p, pErr) ){
    free(p->a);
    p->a = NULL;
    return -1;
  }
  sort_rows(p->a, (size_t)p->n);
  return 0;
}

/* Per step of aStep: matched pairs and their total time in A and B. */
typedef struct StepSums {
  int64_t pairs;
  double a, b;
} StepSums;

/* The matched pairs' steps and log ratios (both times > 0). */
typedef struct PairLogs {
  int *aK;              /* index of the pair's step in aStep */
  double *aD;           /* log(run / baseline time) */
  int64_t n, nAlloc;
} PairLogs;

static void pair_add(PairLogs *p, int k, int64_t da, int64_t db){
  if( p==NULL || k<0 || da<=0 || db<=0 ) return;
  if( p->n==p->nAlloc ){
    p->nAlloc = p->nAlloc ? 2*p->nAlloc : 1024;
    p->aK = xrealloc(p->aK, sizeof(int)*(size_t)p->nAlloc);
    p->aD = xrealloc(p->aD, sizeof(double)*(size_t)p->nAlloc);
  }
  p->aK[p->n] = k;
  p->aD[p->n] = log((double)db/(double)da);
  p->n++;
}

static int step_index(const int64_t *a, int n, int64_t step){
  int lo = 0, hi = n;
  while( lo<hi ){
    int mid = lo+(hi-lo)/2;
    if( a[mid]==step ) return mid;
    if( a[mid]<step ) lo = mid+1; else hi = mid;
  }
  return -1;
}

/* Walk both sorted row lists key by key, pairing occurrences in order;
** each pair's log ratio into pl when it is not NULL. */
static void match(const WorkRows *ra, const WorkRows *rb,
                  const int64_t *aStep, int nStep, StepSums *sums,
                  PairLogs *pl){
  int64_t i = 0, j = 0;
  while( i<ra->n && j<rb->n ){
    int c = cmp_key(&ra->a[i], &rb->a[j]);
    if( c<0 ){ i++; continue; }
    if( c>0 ){ j++; continue; }
    {
      int k = step_index(aStep, nStep, ra->a[i].step);
      int64_t i0 = i, j0 = j;
      while( i<ra->n && cmp_key(&ra->a[i], &ra->a[i0])==0
             && j<rb->n && cmp_key(&rb->a[j], &ra->a[i0])==0 ){
        if( k>=0 ){
          sums[k].pairs++;
          sums[k].a += (double)ra->a[i].dur;
          sums[k].b += (double)rb->a[j].dur;
          pair_add(pl, k, ra->a[i].dur, rb->a[j].dur);
        }
        i++;
        j++;
      }
      /* the rest of the key on either side has no partner */
      while( i<ra->n && cmp_key(&ra->a[i], &ra->a[i0])==0 ) i++;
      while( j<rb->n && cmp_key(&rb->a[j], &rb->a[j0])==0 ) j++;
    }
  }
}

int gate_work_load(sqlite3 *db, int64_t idA, int64_t idB,
                   const int64_t *aStep, int nStep, int minPairs,
                   int wantPairs, GateWork *p, PfError *pErr){
  WorkRows ra, rb;
  StepSums *sums;
  PairLogs pl;
  memset(&pl, 0, sizeof(pl));
  memset(p, 0, sizeof(*p));
  if( nStep<1 ) return 0;
  if( load_rows(db, idA, aStep, nStep, &ra, pErr) ) return -1;
  if( load_rows(db, idB, aStep, nStep, &rb, pErr) ){
    free(ra.a);
    return -1;
  }
  sums = xmalloc(sizeof(StepSums)*(size_t)nStep);
  memset(sums, 0, sizeof(StepSums)*(size_t)nStep);
  match(&ra, &rb, aStep, nStep, sums, wantPairs ? &pl : NULL);
  p->aW = xmalloc(sizeof(double)*(size_t)nStep);
  for(int k=0; k<nStep; k++){
    if( sums[k].pairs<minPairs || !(sums[k].a>0) || !(sums[k].b>0) ){
      sums[k].pairs = -1;               /* the step is out: so are its pairs */
      continue;
    }
    p->aW[p->nW++] = log(sums[k].b/sums[k].a);
    p->nPairs += sums[k].pairs;
  }
  if( wantPairs ){
    p->aP = xmalloc(sizeof(double)*(size_t)(pl.n>0 ? pl.n : 1));
    for(int64_t i=0; i<pl.n; i++){
      if( sums[pl.aK[i]].pairs>=0 ) p->aP[p->nP++] = pl.aD[i];
    }
  }
  free(pl.aK);
  free(pl.aD);
  free(sums);
  free(ra.a);
  free(rb.a);
  return 0;
}
