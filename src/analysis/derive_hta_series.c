/*
** derive_hta_series.c — inserts one rank at a time the rows of schema
** 070 (see derive_hta_series.h): idle intervals and launch-queue changes
** as hta_metric.c's sweeps found them, kernel sequences as kernel_seq.c
** counted them.  Nothing is computed here but the text of a sequence.
**
** Pipeline position: "derive", called by derive_hta.c for each rank.
*/
#include "analysis/derive_hta_series.h"
#include "analysis/kernel_seq.h"
#include "core/db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct HtaSeriesStore {
  sqlite3 *db;
  int64_t runId;
  sqlite3_stmt *pIdle, *pQueue, *pSeq;
};

HtaSeriesStore *hta_series_open(sqlite3 *db, int64_t runId, PfError *pErr){
  HtaSeriesStore *p;
  if( db_exec_run(db, db_statement("hta-series-clear"), runId, pErr) ){
    return NULL;
  }
  p = xcalloc(1, sizeof(*p));
  p->db = db;
  p->runId = runId;
  p->pIdle = db_prepare(db, db_statement("hta-series-insert-idle"),
                        pErr);
  p->pQueue = db_prepare(db, db_statement("hta-series-insert-queue"),
                         pErr);
  p->pSeq = db_prepare(db, db_statement("hta-series-insert-sequence"),
                       pErr);
  if( p->pIdle==NULL || p->pQueue==NULL || p->pSeq==NULL ){
    hta_series_close(p);
    return NULL;
  }
  return p;
}

void hta_series_close(HtaSeriesStore *p){
  if( p==NULL ) return;
  sqlite3_finalize(p->pIdle);
  sqlite3_finalize(p->pQueue);
  sqlite3_finalize(p->pSeq);
  free(p);
}

static const char *kind_name(int cls){
  return cls==HP_MEMCPY ? "memcpy" : cls==HP_MEMSET ? "memset" : "kernel";
}

static int store_idle(HtaSeriesStore *p, int64_t rank, const HtaSeries *pS,
                      PfError *pErr){
  sqlite3_stmt *s = p->pIdle;
  for(int i=0; i<pS->nIdle; i++){
    const HtaIdleRow *r = &pS->aIdle[i];
    sqlite3_bind_int64(s, 1, p->runId);
    sqlite3_bind_int64(s, 2, rank);
    sqlite3_bind_int64(s, 3, r->g->device);
    sqlite3_bind_int64(s, 4, r->g->stream);
    sqlite3_bind_int(s, 5, r->hostWait);
    sqlite3_bind_int64(s, 6, r->g->ts - r->prevEnd);
    sqlite3_bind_int64(s, 7, r->g->ts);
    sqlite3_bind_text(s, 8, kind_name(r->g->cls), -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 9, r->g->id);
    db_bind_int_or_null(s, 10, r->g->hasLaunch, r->g->lts);
    if( db_step_done(p->db, s, pErr) ) return -1;
  }
  return 0;
}

static int store_queue(HtaSeriesStore *p, int64_t rank, const HtaSeries *pS,
                       PfError *pErr){
  sqlite3_stmt *s = p->pQueue;
  for(int i=0; i<pS->nQueue; i++){
    const HtaQueueRow *r = &pS->aQueue[i];
    sqlite3_bind_int64(s, 1, p->runId);
    sqlite3_bind_int64(s, 2, rank);
    sqlite3_bind_int64(s, 3, r->device);
    sqlite3_bind_int64(s, 4, r->stream);
    sqlite3_bind_int(s, 5, r->seq);
    sqlite3_bind_int64(s, 6, r->ts);
    sqlite3_bind_int64(s, 7, r->len);
    db_bind_int_or_null(s, 8, r->hasNext, r->nextTs);
    db_bind_int_or_null(s, 9, r->full>0, r->full);
    sqlite3_bind_int(s, 10, r->ops);
    if( db_step_done(p->db, s, pErr) ) return -1;
  }
  return 0;
}

static int store_seq(HtaSeriesStore *p, int64_t rank, const HpGpu *a, int n,
                     PfError *pErr){
  sqlite3_stmt *s = p->pSeq;
  int nSeq = 0, rc = 0;
  KsSeq *aSeq = kernel_seq_rank(a, n, &nSeq);
  for(int i=0; i<nSeq && rc==0; i++){
    const KsSeq *q = &aSeq[i];
    char zSeq[KS_MAX_LEN*21+1];
    int m = 0;
    for(int j=0; j<q->len; j++){
      m += snprintf(zSeq+m, sizeof(zSeq)-(size_t)m, j ? ",%lld" : "%lld",
                    (long long)q->aName[j]);
    }
    sqlite3_bind_int64(s, 1, p->runId);
    sqlite3_bind_int64(s, 2, rank);
    sqlite3_bind_int64(s, 3, q->stream);
    sqlite3_bind_int(s, 4, q->len);
    sqlite3_bind_text(s, 5, zSeq, m, SQLITE_TRANSIENT);
    sqlite3_bind_int64(s, 6, q->n);
    sqlite3_bind_int64(s, 7, q->ns);
    sqlite3_bind_int64(s, 8, q->spanNs);
    rc = db_step_done(p->db, s, pErr);
  }
  free(aSeq);
  return rc;
}

int hta_series_rank(HtaSeriesStore *p, int64_t rank, const HtaSeries *pS,
                    const HpGpu *a, int n, PfError *pErr){
  if( store_idle(p, rank, pS, pErr) || store_queue(p, rank, pS, pErr) ){
    return -1;
  }
  return n>0 ? store_seq(p, rank, a, n, pErr) : 0;
}
