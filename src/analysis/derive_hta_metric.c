/*
** derive_hta_metric.c — the SQL side of the HTA headline numbers (see
** derive_hta_metric.h): kernel classes from the coarse categories of
** view kernel_category (communication: comm_pattern), and
** the rows of hta_run_metric that the view hta_metric (and so run_metric)
** reads, so `trend`, `check` and `diff` never sweep the analysis views.
**
** Pipeline position: "derive", called by derive_hta.c.  Writes only
** hta_run_metric.
*/
#include "analysis/derive_hta_metric.h"
#include "core/db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hta_klass_load(sqlite3 *db, int64_t runId, HtaKlass *p, PfError *pErr){
  sqlite3_stmt *s = db_prepare(db,
                               db_statement("derive-hta-metric-class"), pErr);
  int nAlloc = 0, rc;
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, runId);
  while( (rc = sqlite3_step(s))==SQLITE_ROW ){
    const char *zC = (const char *)sqlite3_column_text(s, 1);
    int k = zC && strcmp(zC, "comm")==0 ? HK_COMM
          : zC && strcmp(zC, "memory")==0 ? HK_MEMORY : HK_COMPUTE;
    if( p->n==nAlloc ){
      nAlloc = nAlloc ? 2*nAlloc : 64;
      p->aName = xrealloc(p->aName, sizeof(int64_t)*(size_t)nAlloc);
      p->aK = xrealloc(p->aK, sizeof(int)*(size_t)nAlloc);
    }
    p->aName[p->n] = sqlite3_column_int64(s, 0);
    p->aK[p->n++] = k;
  }
  sqlite3_finalize(s);
  if( rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: %s", sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}

int hta_klass_of(const HtaKlass *p, int64_t name){
  int lo = 0, hi = p->n;
  while( lo<hi ){
    int mid = lo + (hi-lo)/2;
    if( p->aName[mid]<name ) lo = mid+1; else hi = mid;
  }
  return lo<p->n && p->aName[lo]==name ? p->aK[lo] : HK_COMPUTE;
}

void hta_klass_free(HtaKlass *p){
  free(p->aName);
  free(p->aK);
  memset(p, 0, sizeof(*p));
}

static int put(sqlite3 *db, sqlite3_stmt *s, int64_t runId, const char *zM,
               double v, PfError *pErr){
  sqlite3_bind_int64(s, 1, runId);
  sqlite3_bind_text(s, 2, zM, -1, SQLITE_TRANSIENT);
  sqlite3_bind_double(s, 3, v);
  return db_step_done(db, s, pErr);
}

/* The critical-path shares: hta_cp_CLASS_pct for every class on the path
** (communication kernels as comm_kernel). */
static int put_cp(sqlite3 *db, sqlite3_stmt *s, int64_t runId,
                  const int64_t *aCp, PfError *pErr){
  int64_t tot = 0;
  for(int i=0; i<HTA_CP_N; i++) tot += aCp[i];
  for(int i=0; i<HTA_CP_N && tot>0; i++){
    char z[64];
    if( aCp[i]==0 ) continue;
    snprintf(z, sizeof(z), "hta_cp_%s_pct",
             i==HTA_CP_COMM ? "comm_kernel" : hta_path_class_name(i));
    if( put(db, s, runId, z, 100.0*(double)aCp[i]/(double)tot, pErr) ){
      return -1;
    }
  }
  return 0;
}

int hta_metric_store(sqlite3 *db, int64_t runId, const HtaTotals *pT,
                     const int64_t *aCp, PfError *pErr){
  sqlite3_stmt *s;
  int64_t nStep = db_int(db, 0, "SELECT count(*) FROM step WHERE run_id=%lld",
                         (long long)runId);
  int rc = 0;
  if( db_exec_run(db,
     db_statement("derive-hta-metric-store"), runId, pErr) ) return -1;
  s = db_prepare(db, "INSERT INTO hta_run_metric VALUES(?,?,?)", pErr);
  if( s==NULL ) return -1;
  if( pT->spanNs>0 ){
    double span = (double)pT->spanNs;
    rc = put(db, s, runId, "hta_idle_pct", 100.0*(double)pT->idleNs/span, pErr)
      || put(db, s, runId, "hta_compute_pct",
             100.0*(double)pT->computeNs/span, pErr)
      || put(db, s, runId, "hta_non_compute_pct",
             100.0*(double)pT->nonComputeNs/span, pErr);
  }
  if( rc==0 && pT->streamIdleNs>0 ){
    rc = put(db, s, runId, "hta_host_wait_pct",
             100.0*(double)pT->hostWaitNs/(double)pT->streamIdleNs, pErr);
  }
  if( rc==0 && pT->nQueueRank>0 ){
    rc = put(db, s, runId, "hta_queue_mean",
             pT->queueMeanSum/pT->nQueueRank, pErr);
  }
  if( rc==0 && pT->nQueueStream>0 && nStep>0 ){
    rc = put(db, s, runId, "hta_queue_blocked_ms",
             (double)pT->blockedNs/1e6/(double)nStep, pErr);
  }
  if( rc==0 ) rc = put_cp(db, s, runId, aCp, pErr);
  sqlite3_finalize(s);
  return rc ? -1 : 0;
}
