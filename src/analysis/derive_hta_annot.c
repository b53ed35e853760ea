/*
** derive_hta_annot.c — fills hta_annotation_parent and
** hta_launch_annotation (030-annotation-sweep.sql) for one run: reads the
** run's CPU user annotations (ProfilerStep#N ranges left out: they are
** steps), sweeps each thread once (hta_annot.c) and writes
**   - every annotation's parent (NULL when outermost), and
**   - the innermost annotation around every GPU op's launch call, as
**     ranges of row ids: consecutive launched ops of one table (kernel,
**     gpu_mem_op) with the same annotation are one row, ops with none
**     no row (one row per op cost more than the sweep at 10x).
** The run's rows are replaced, so it may run again (profan merge).
**
** Pipeline position: "derive", called by derive_hta_run with the GPU ops
** it loaded (from the rows the writer kept or from the database).
*/
#include "analysis/derive_hta_annot.h"
#include "analysis/hta_annot.h"
#include "core/db.h"
#include "core/msort.h"

#include <stdint.h>
#include <stdlib.h>

/* The run's user annotations: those on a thread into *paA (*pnA), the
** ids of those without one into *paNull (*pnNull). */
static int annot_load(sqlite3 *db, int64_t runId, HaAnnot **paA,
                      size_t *pnA, int64_t **paNull, size_t *pnNull,
                      PfError *pErr){
  sqlite3_stmt *p = db_prepare(db, db_statement("derive-hta-annot"), pErr);
  size_t nAlloc = 0, nNullAlloc = 0;
  int rc;
  if( p==NULL ) return -1;
  sqlite3_bind_int64(p, 1, runId);
  while( (rc = sqlite3_step(p))==SQLITE_ROW ){
    HaAnnot *a;
    if( sqlite3_column_int(p, 5) ){
      if( *pnNull==nNullAlloc ){
        nNullAlloc = nNullAlloc ? 2*nNullAlloc : 64;
        *paNull = xrealloc(*paNull, sizeof(int64_t)*nNullAlloc);
      }
      (*paNull)[(*pnNull)++] = sqlite3_column_int64(p, 0);
      continue;
    }
    if( *pnA==nAlloc ){
      nAlloc = nAlloc ? 2*nAlloc : 256;
      *paA = xrealloc(*paA, sizeof(HaAnnot)*nAlloc);
    }
    a = &(*paA)[(*pnA)++];
    a->id = sqlite3_column_int64(p, 0);
    a->rank = sqlite3_column_int64(p, 1);
    a->tid = sqlite3_column_int64(p, 2);
    a->ts = sqlite3_column_int64(p, 3);
    a->end = sqlite3_column_int64(p, 4);
  }
  if( rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
  }
  sqlite3_finalize(p);
  return rc==SQLITE_DONE ? 0 : -1;
}

static int store_parents(sqlite3 *db, int64_t runId, const HaAnnot *a,
                         size_t n, const int64_t *aNull, size_t nNull,
                         PfError *pErr){
  int64_t *aParent = xmalloc(sizeof(int64_t)*(n ? n : 1));
  sqlite3_stmt *p = db_prepare(db,
      db_statement("derive-hta-annot-store-parents"), pErr);
  int rc = p ? 0 : -1;
  hta_annot_parents(a, n, aParent);
  for(size_t i=0; rc==0 && i<n+nNull; i++){
    sqlite3_bind_int64(p, 1, runId);
    sqlite3_bind_int64(p, 2, i<n ? a[i].id : aNull[i-n]);
    db_bind_int_or_null(p, 3, i<n && aParent[i]>0, i<n ? aParent[i] : 0);
    rc = db_step_done(db, p, pErr);
  }
  sqlite3_finalize(p);
  free(aParent);
  return rc;
}

/* A call's tid NULL was kept as 0 (sqlite3_column_int64, trace_spans.h)
** and matches no annotation: *pAnnot is cleared when g's call has none.
** Only asked of launches placed on thread 0. */
static int null_tid(sqlite3 *db, sqlite3_stmt **pp, const HpGpu *g,
                    int64_t *pAnnot, PfError *pErr){
  int rc;
  if( *pp==NULL ){
    *pp = db_prepare(db, "SELECT tid IS NULL FROM runtime_call WHERE id=?1",
                     pErr);
    if( *pp==NULL ) return -1;
  }
  sqlite3_bind_int64(*pp, 1, g->rt);
  rc = sqlite3_step(*pp);
  if( rc==SQLITE_ROW && sqlite3_column_int(*pp, 0) ) *pAnnot = 0;
  sqlite3_reset(*pp);
  if( rc!=SQLITE_ROW && rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}

/* A launched op placed: its table (0 kernel, 1 gpu_mem_op), row id and
** innermost annotation (0: none). */
typedef struct Placed { int64_t tab, id, annot; } Placed;

static int placed_cmp(const Placed *a, const Placed *b){
  if( a->tab!=b->tab ) return a->tab<b->tab ? -1 : 1;
  return a->id<b->id ? -1 : a->id>b->id;
}

/* Sort by (table, row id). */
DEFINE_MSORT(placed_sort, Placed, placed_cmp)

/* The placed ops, sorted, as ranges of one annotation. */
static int store_ranges(sqlite3 *db, int64_t runId, const Placed *a,
                        size_t n, PfError *pErr){
  static const char *const azTab[2] = { "kernel", "gpu_mem_op" };
  sqlite3_stmt *p = db_prepare(db,
                               db_statement("derive-hta-annot-store-ranges"),
                               pErr);
  int rc = p ? 0 : -1;
  for(size_t i=0; rc==0 && i<n; ){
    size_t j = i+1;
    while( j<n && a[j].tab==a[i].tab && a[j].annot==a[i].annot ) j++;
    if( a[i].annot>0 ){
      sqlite3_bind_int64(p, 1, runId);
      sqlite3_bind_text(p, 2, azTab[a[i].tab], -1, SQLITE_STATIC);
      sqlite3_bind_int64(p, 3, a[i].id);
      sqlite3_bind_int64(p, 4, a[j-1].id);
      sqlite3_bind_int64(p, 5, a[i].annot);
      rc = db_step_done(db, p, pErr);
    }
    i = j;
  }
  sqlite3_finalize(p);
  return rc;
}

/* Place every launched op of aGpu among the annotations a, store. */
static int store_launches(sqlite3 *db, int64_t runId, const HaAnnot *a,
                          size_t n, const HpGpu *aGpu, int nGpu,
                          PfError *pErr){
  Placed *aOut = xmalloc(sizeof(Placed)*(size_t)(nGpu>0 ? nGpu : 1));
  HaMap *pMap = hta_annot_map(a, n);
  sqlite3_stmt *pTid = NULL;
  size_t nOut = 0;
  int rc = 0;
  for(int i=0; rc==0 && i<nGpu; i++){
    const HpGpu *g = &aGpu[i];
    Placed *o;
    if( !g->hasLaunch ) continue;
    o = &aOut[nOut++];
    o->tab = g->cls==HP_KERNEL ? 0 : 1;
    o->id = g->id;
    o->annot = n ? hta_annot_at(pMap, g->rank, g->ltid, g->lts) : 0;
    if( o->annot && g->ltid==0 ) rc = null_tid(db, &pTid, g, &o->annot, pErr);
  }
  sqlite3_finalize(pTid);
  hta_annot_map_free(pMap);
  if( rc==0 ){
    placed_sort(aOut, nOut);
    rc = store_ranges(db, runId, aOut, nOut, pErr);
  }
  free(aOut);
  return rc;
}

int derive_hta_annot_run(sqlite3 *db, int64_t runId, const HpGpu *aGpu,
                         int nGpu, PfError *pErr){
  HaAnnot *aA = NULL;
  int64_t *aNull = NULL;
  size_t nA = 0, nNull = 0;
  int rc;
  if( db_exec_run(db, db_statement("derive-hta-annot-run"),
                  runId, pErr) ) return -1;
  rc = annot_load(db, runId, &aA, &nA, &aNull, &nNull, pErr);
  if( rc==0 ){
    hta_annot_sort(aA, nA);
    rc = store_parents(db, runId, aA, nA, aNull, nNull, pErr);
  }
  if( rc==0 ) rc = store_launches(db, runId, aA, nA, aGpu, nGpu, pErr);
  free(aA);
  free(aNull);
  return rc;
}
