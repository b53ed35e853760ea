/*
** derive_hta_series.c — inserts one rank at a time the rows of schemas
** 094 and 106 (see derive_hta_series.h): per stream, its idle intervals
** (in cause, then gap order) and launch-queue changes as hta_metric.c's
** sweeps found them, then its hta_stream row (where those rows are, the
** queue statistics the sweep computed); kernel sequences as kernel_seq.c
** counted them, each distinct sequence of the run once in
** kernel_seq_text (schema 107).  Nothing is computed here but the order
** of a stream's idle intervals and the ids and text of the sequences.
**
** Pipeline position: "derive", called by derive_hta.c for each rank.
*/
#include "analysis/derive_hta_series.h"
#include "analysis/kernel_seq.h"
#include "core/db.h"
#include "core/db_batch.h"
#include "core/msort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A distinct sequence of the run and its kernel_seq_text id (0: an
** empty slot of the table). */
typedef struct SeqSlot { int64_t aName[KS_MAX_LEN]; int len; int64_t id; }
  SeqSlot;

/* Rows of one rowid table written BATCH at a time (db_batch.h) and the
** rowid the next row will get (rows go in at the end of the table, max +
** 1, checked after each write). */
#define BATCH 16
#define BATCH_COL 5
typedef struct Batch {
  DbBatch rows;
  int64_t next;                 /* rowid of the next row added */
} Batch;

struct HtaSeriesStore {
  sqlite3 *db;
  int64_t runId;
  Batch idle, queue;            /* hta_idle_gap, hta_queue_point */
  sqlite3_stmt *pStream, *pSeq, *pText;
  SeqSlot *aSlot; unsigned nSlot, nUsed;      /* the run's sequences */
};

static int batch_open(sqlite3 *db, Batch *b, const char *zName,
                      const char *zTable, PfError *pErr){
  b->next = db_int(db, 0, "SELECT max(id) FROM %s", zTable) + 1;
  return db_batch_open(db, &b->rows, zName, BATCH_COL, BATCH, pErr);
}

static void batch_close(Batch *b){
  db_batch_close(&b->rows);
}

/* After a write: the last row got the rowid counted.  0 or -1. */
static int rowid_check(sqlite3 *db, const Batch *b, PfError *pErr){
  if( sqlite3_last_insert_rowid(db)!=b->next-1 ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "database: HTA series rows did not"
                 " get consecutive rowids (%lld, not %lld)",
                 (long long)sqlite3_last_insert_rowid(db),
                 (long long)(b->next-1));
    return -1;
  }
  return 0;
}

/* Write the rows waiting, then check their rowids. */
static int batch_flush(sqlite3 *db, Batch *b, PfError *pErr){
  if( b->rows.n==0 ) return 0;
  if( db_batch_flush(db, &b->rows, pErr) ) return -1;
  return rowid_check(db, b, pErr);
}

/* Add a row of BATCH_COL values (aNull[i]: value i is NULL); its rowid
** in *pId.  BATCH rows are written (and checked) when that many wait. */
static int batch_add(sqlite3 *db, Batch *b, const int64_t *aVal,
                     const char *aNull, int64_t *pId, PfError *pErr){
  *pId = b->next++;
  if( db_batch_add(db, &b->rows, aVal, aNull, pErr) ) return -1;
  return b->rows.n==0 ? rowid_check(db, b, pErr) : 0;
}

HtaSeriesStore *hta_series_open(sqlite3 *db, int64_t runId, PfError *pErr){
  HtaSeriesStore *p;
  if( db_exec_run(db, db_statement("hta-series-clear"), runId, pErr) ){
    return NULL;
  }
  p = xcalloc(1, sizeof(*p));
  p->db = db;
  p->runId = runId;
  if( batch_open(db, &p->idle, "hta-series-insert-idle", "hta_idle_gap",
                 pErr)
      || batch_open(db, &p->queue, "hta-series-insert-queue",
                    "hta_queue_point", pErr) ){
    hta_series_close(p);
    return NULL;
  }
  p->pStream = db_prepare(db, db_statement("hta-series-insert-stream"),
                          pErr);
  p->pSeq = db_prepare(db, db_statement("hta-series-insert-sequence"),
                       pErr);
  p->pText = db_prepare(db, db_statement("hta-series-insert-sequence-text"),
                        pErr);
  if( p->pStream==NULL || p->pSeq==NULL || p->pText==NULL ){
    hta_series_close(p);
    return NULL;
  }
  return p;
}

void hta_series_close(HtaSeriesStore *p){
  if( p==NULL ) return;
  batch_close(&p->idle);
  batch_close(&p->queue);
  sqlite3_finalize(p->pStream);
  sqlite3_finalize(p->pSeq);
  sqlite3_finalize(p->pText);
  free(p->aSlot);
  free(p);
}

/* A stream's idle intervals in their stored order: without a host wait
** first, then by gap (see schema 106). */
static int cmp_idle(const void *a, const void *b){
  const HtaIdleRow *x = a, *y = b;
  int64_t gx = x->g->ts - x->prevEnd, gy = y->g->ts - y->prevEnd;
  if( x->hostWait!=y->hostWait ) return x->hostWait - y->hostWait;
  return gx<gy ? -1 : gx>gy;
}

DEFINE_MSORT(sort_idle, HtaIdleRow, cmp_idle)

/* Add the stream's idle intervals; *pFirst: the first one's rowid. */
static int store_idle(HtaSeriesStore *p, HtaSeries *pS, const HtaStreamRow *r,
                      int64_t *pFirst, PfError *pErr){
  static const char aNull[BATCH_COL] = {0, 0, 0, 0, 0};
  if( r->idleHi==r->idleLo ) return 0;   /* aIdle may be NULL: no NULL+0 */
  sort_idle(pS->aIdle+r->idleLo, (size_t)(r->idleHi-r->idleLo));
  for(int i=r->idleLo; i<r->idleHi; i++){
    const HtaIdleRow *g = &pS->aIdle[i];
    int64_t aVal[BATCH_COL], id;
    aVal[0] = p->runId;
    aVal[1] = g->hostWait;
    aVal[2] = g->g->ts - g->prevEnd;
    aVal[3] = g->g->cls==HP_MEMCPY || g->g->cls==HP_MEMSET;
    aVal[4] = g->g->id;
    if( batch_add(p->db, &p->idle, aVal, aNull, &id, pErr) ) return -1;
    if( i==r->idleLo ) *pFirst = id;
  }
  return 0;
}

/* Add the stream's queue changes; *pFirst: the first one's rowid. */
static int store_queue(HtaSeriesStore *p, const HtaSeries *pS,
                       const HtaStreamRow *r, int64_t *pFirst,
                       PfError *pErr){
  for(int i=r->queueLo; i<r->queueHi; i++){
    const HtaQueueRow *q = &pS->aQueue[i];
    int64_t aVal[BATCH_COL] = {p->runId, q->ts - r->t0, q->len, q->full,
                               q->ops}, id;
    char aNull[BATCH_COL] = {0, 0, 0, (char)(q->full<=0), 0};
    if( batch_add(p->db, &p->queue, aVal, aNull, &id, pErr) ) return -1;
    if( i==r->queueLo ) *pFirst = id;
  }
  return 0;
}

/* One stream: its rows, then its hta_stream row. */
static int store_stream(HtaSeriesStore *p, int64_t rank, HtaSeries *pS,
                        const HtaStreamRow *r, PfError *pErr){
  sqlite3_stmt *s = p->pStream;
  int64_t idleFirst = 0, queueFirst = 0;
  int nQ = r->queueHi - r->queueLo;
  if( store_idle(p, pS, r, &idleFirst, pErr)
      || store_queue(p, pS, r, &queueFirst, pErr) ) return -1;
  sqlite3_bind_int64(s, 1, p->runId);
  sqlite3_bind_int64(s, 2, rank);
  sqlite3_bind_int64(s, 3, r->device);
  sqlite3_bind_int64(s, 4, r->stream);
  db_bind_int_or_null(s, 5, r->idleHi>r->idleLo, idleFirst);
  sqlite3_bind_int(s, 6, r->idleHi - r->idleLo);
  db_bind_int_or_null(s, 7, nQ>0, queueFirst);
  sqlite3_bind_int(s, 8, nQ);
  db_bind_int_or_null(s, 9, nQ>0, r->t0);
  db_bind_int_or_null(s, 10, nQ>0, r->sum);
  db_bind_int_or_null(s, 11, nQ>0, r->max);
  for(int j=0; j<HTA_NQUANT; j++){
    db_bind_int_or_null(s, 12+2*j, nQ>0, r->aLo[j]);
    db_bind_int_or_null(s, 13+2*j, nQ>0 && r->aHasHi[j], r->aHi[j]);
  }
  db_bind_int_or_null(s, 18, nQ>0, r->area);
  db_bind_int_or_null(s, 19, nQ>0, r->span);
  db_bind_int_or_null(s, 20, nQ>0 && r->hasEmpty, r->emptyNs);
  db_bind_int_or_null(s, 21, nQ>0, r->blockedNs);
  return db_step_done(p->db, s, pErr);
}

static unsigned seq_hash(const int64_t *aName, int len, unsigned mask){
  uint64_t h = (uint64_t)len;
  for(int j=0; j<len; j++){
    h = (h ^ (uint64_t)aName[j]) * 0x100000001B3ull;
  }
  return (unsigned)(h ^ (h>>29)) & mask;
}

static void seq_grow(HtaSeriesStore *p){
  SeqSlot *aOld = p->aSlot;
  unsigned nOld = p->nSlot;
  p->nSlot = nOld ? 2*nOld : 256;
  p->aSlot = xcalloc(p->nSlot, sizeof(SeqSlot));
  for(unsigned i=0; i<nOld; i++){
    unsigned h;
    if( aOld[i].id==0 ) continue;
    h = seq_hash(aOld[i].aName, aOld[i].len, p->nSlot-1);
    while( p->aSlot[h].id ) h = (h+1) & (p->nSlot-1);
    p->aSlot[h] = aOld[i];
  }
  free(aOld);
}

/* The run's id of sequence q, its kernel_seq_text row written when it is
** new; -1 with pErr set on a database error. */
static int64_t seq_id(HtaSeriesStore *p, const KsSeq *q, PfError *pErr){
  SeqSlot *e;
  unsigned h;
  char zSeq[KS_MAX_LEN*21+1];
  int m = 0;
  if( 2*(p->nUsed+1)>p->nSlot ) seq_grow(p);
  h = seq_hash(q->aName, q->len, p->nSlot-1);
  for(e=&p->aSlot[h]; e->id; e=&p->aSlot[h]){
    if( e->len==q->len
        && memcmp(e->aName, q->aName, sizeof(int64_t)*(size_t)q->len)==0 ){
      return e->id;
    }
    h = (h+1) & (p->nSlot-1);
  }
  memcpy(e->aName, q->aName, sizeof(int64_t)*(size_t)q->len);
  e->len = q->len;
  e->id = ++p->nUsed;
  for(int j=0; j<q->len; j++){
    m += snprintf(zSeq+m, sizeof(zSeq)-(size_t)m, j ? ",%lld" : "%lld",
                  (long long)q->aName[j]);
  }
  sqlite3_bind_int64(p->pText, 1, p->runId);
  sqlite3_bind_int64(p->pText, 2, e->id);
  sqlite3_bind_int(p->pText, 3, q->len);
  sqlite3_bind_text(p->pText, 4, zSeq, m, SQLITE_TRANSIENT);
  return db_step_done(p->db, p->pText, pErr) ? -1 : e->id;
}

static int store_seq(HtaSeriesStore *p, int64_t rank, const HpGpu *a, int n,
                     PfError *pErr){
  sqlite3_stmt *s = p->pSeq;
  int nSeq = 0, rc = 0;
  KsSeq *aSeq = kernel_seq_rank(a, n, &nSeq);
  for(int i=0; i<nSeq && rc==0; i++){
    const KsSeq *q = &aSeq[i];
    int64_t id = seq_id(p, q, pErr);
    if( id<0 ){
      rc = -1;
      break;
    }
    sqlite3_bind_int64(s, 1, p->runId);
    sqlite3_bind_int64(s, 2, rank);
    sqlite3_bind_int64(s, 3, q->stream);
    sqlite3_bind_int64(s, 4, id);
    sqlite3_bind_int64(s, 5, q->n);
    sqlite3_bind_int64(s, 6, q->ns);
    sqlite3_bind_int64(s, 7, q->spanNs);
    rc = db_step_done(p->db, s, pErr);
  }
  free(aSeq);
  return rc;
}

int hta_series_rank(HtaSeriesStore *p, int64_t rank, HtaSeries *pS,
                    const HpGpu *a, int n, PfError *pErr){
  for(int i=0; i<pS->nStream; i++){
    if( store_stream(p, rank, pS, &pS->aStream[i], pErr) ) return -1;
  }
  if( batch_flush(p->db, &p->idle, pErr)
      || batch_flush(p->db, &p->queue, pErr) ) return -1;
  return n>0 ? store_seq(p, rank, a, n, pErr) : 0;
}
