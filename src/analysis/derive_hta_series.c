/*
** derive_hta_series.c — inserts one rank at a time the rows of schemas
** 107, 112 and 124 (see derive_hta_series.h): per stream its hta_stream
** row, with its idle intervals (in cause, then gap order) and
** launch-queue changes as hta_metric.c's sweeps found them, as two JSON
** arrays, and the queue statistics the sweep computed; kernel sequences
** as kernel_seq.c counted them, each distinct sequence of the run once
** in kernel_seq_text, the counts on a rank's stream as one JSON array
** (kernel_seq_stream).  Nothing is computed here but the order of a
** stream's idle intervals, the (queue_full, ops) pair most of its queue
** changes share (stored once, schema 124) and the ids and text of the
** sequences.
**
** Pipeline position: "derive", called by derive_hta.c for each rank.
*/
#include "analysis/derive_hta_series.h"
#include "analysis/kernel_seq.h"
#include "core/db.h"
#include "core/msort.h"

#include <stdlib.h>
#include <string.h>

/* A distinct sequence of the run and its kernel_seq_text id (0: an
** empty slot of the table). */
typedef struct SeqSlot { int64_t aName[KS_MAX_LEN]; int len; int64_t id; }
  SeqSlot;

struct HtaSeriesStore {
  sqlite3 *db;
  int64_t runId;
  Buf idle, queue;              /* one stream's JSON arrays */
  Buf seq;                      /* a sequence's text */
  sqlite3_stmt *pStream, *pSeq, *pText;
  SeqSlot *aSlot; unsigned nSlot, nUsed;      /* the run's sequences */
};

/* Append integer v in decimal, two digits a step (snprintf cost 10 times
** more: callgrind, synthetic-memory). */
static void put_int(Buf *b, int64_t v){
  static const char aPair[] =
    "00010203040506070809101112131415161718192021222324252627282930313233"
    "34353637383940414243444546474849505152535455565758596061626364656667"
    "6869707172737475767778798081828384858687888990919293949596979899";
  char z[24];
  int i = (int)sizeof(z);
  uint64_t u = v<0 ? 0u-(uint64_t)v : (uint64_t)v;
  while( u>=100 ){
    const char *d = &aPair[2*(u%100)];
    u /= 100;
    z[--i] = d[1];
    z[--i] = d[0];
  }
  if( u>=10 ){
    z[--i] = aPair[2*u+1];
    z[--i] = aPair[2*u];
  }else{
    z[--i] = (char)('0' + u);
  }
  if( v<0 ) z[--i] = '-';
  buf_append(b, z+i, sizeof(z)-(size_t)i);
}

HtaSeriesStore *hta_series_open(sqlite3 *db, int64_t runId, PfError *pErr){
  HtaSeriesStore *p;
  if( db_exec_run(db, db_statement("hta-series-clear"), runId, pErr) ){
    return NULL;
  }
  p = xcalloc(1, sizeof(*p));
  p->db = db;
  p->runId = runId;
  buf_init(&p->idle);
  buf_init(&p->queue);
  buf_init(&p->seq);
  p->pStream = db_prepare(db, db_statement("hta-series-insert-stream"),
                          pErr);
  p->pText = db_prepare(db, db_statement("hta-series-insert-sequence-text"),
                        pErr);
  p->pSeq = db_prepare(db, db_statement("hta-series-insert-sequence"),
                       pErr);
  if( p->pStream==NULL || p->pSeq==NULL || p->pText==NULL ){
    hta_series_close(p);
    return NULL;
  }
  return p;
}

void hta_series_close(HtaSeriesStore *p){
  if( p==NULL ) return;
  buf_free(&p->idle);
  buf_free(&p->queue);
  buf_free(&p->seq);
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

/* The stream's idle intervals as schema 124's JSON array in p->idle;
** returns the number without a host wait (they come first). */
static int idle_json(HtaSeriesStore *p, HtaSeries *pS, const HtaStreamRow *r){
  Buf *b = &p->idle;
  int nNoWait = 0;
  buf_reset(b);
  buf_putc(b, '[');
  if( r->idleHi>r->idleLo ){             /* aIdle may be NULL: no NULL+0 */
    sort_idle(pS->aIdle+r->idleLo, (size_t)(r->idleHi-r->idleLo));
  }
  for(int i=r->idleLo; i<r->idleHi; i++){
    const HtaIdleRow *g = &pS->aIdle[i];
    int mem = g->g->cls==HP_MEMCPY || g->g->cls==HP_MEMSET;
    if( !g->hostWait ) nNoWait++;
    buf_append(b, i>r->idleLo ? ",[" : "[", i>r->idleLo ? 2 : 1);
    put_int(b, g->g->ts - g->prevEnd);
    buf_putc(b, ',');
    put_int(b, mem ? -g->g->id : g->g->id);
    buf_putc(b, ']');
  }
  buf_putc(b, ']');
  return nNoWait;
}

/* The most common (queue_full, ops) pair of the stream's queue changes,
** among the first QUEUE_PAIRS distinct pairs (any pair decodes the same:
** the choice only sets how many elements are short). */
#define QUEUE_PAIRS 8
static void queue_common(const HtaSeries *pS, const HtaStreamRow *r,
                         int64_t *pFull, int *pOps){
  int64_t aFull[QUEUE_PAIRS];
  int aOps[QUEUE_PAIRS], aN[QUEUE_PAIRS], nPair = 0, best = 0;
  for(int i=r->queueLo; i<r->queueHi; i++){
    const HtaQueueRow *q = &pS->aQueue[i];
    int j = 0;
    while( j<nPair && (aFull[j]!=q->full || aOps[j]!=q->ops) ) j++;
    if( j==nPair ){
      if( nPair==QUEUE_PAIRS ) continue;
      aFull[j] = q->full;
      aOps[j] = q->ops;
      aN[j] = 0;
      nPair++;
    }
    if( ++aN[j]>aN[best] ) best = j;
  }
  *pFull = nPair ? aFull[best] : 0;
  *pOps = nPair ? aOps[best] : 0;
}

/* The stream's queue changes as schema 124's JSON array in p->queue, the
** short form for the changes whose pair is (full, ops). */
static void queue_json(HtaSeriesStore *p, const HtaSeries *pS,
                       const HtaStreamRow *r, int64_t full, int ops){
  Buf *b = &p->queue;
  buf_reset(b);
  buf_putc(b, '[');
  for(int i=r->queueLo; i<r->queueHi; i++){
    const HtaQueueRow *q = &pS->aQueue[i];
    buf_append(b, i>r->queueLo ? ",[" : "[", i>r->queueLo ? 2 : 1);
    put_int(b, i+1<r->queueHi ? q[1].ts - q->ts : 0);
    buf_putc(b, ',');
    put_int(b, q->len);
    if( q->full!=full || q->ops!=ops ){
      buf_putc(b, ',');
      if( q->full>0 ) put_int(b, q->full);
      else buf_append(b, "null", 4);
      buf_putc(b, ',');
      put_int(b, q->ops);
    }
    buf_putc(b, ']');
  }
  buf_putc(b, ']');
}

/* One stream: its hta_stream row with its arrays. */
static int store_stream(HtaSeriesStore *p, int64_t rank, HtaSeries *pS,
                        const HtaStreamRow *r, PfError *pErr){
  sqlite3_stmt *s = p->pStream;
  int nQ = r->queueHi - r->queueLo, ops;
  int64_t full;
  int nNoWait = idle_json(p, pS, r);
  queue_common(pS, r, &full, &ops);
  queue_json(p, pS, r, full, ops);
  sqlite3_bind_int64(s, 1, p->runId);
  sqlite3_bind_int64(s, 2, rank);
  sqlite3_bind_int64(s, 3, r->device);
  sqlite3_bind_int64(s, 4, r->stream);
  sqlite3_bind_int(s, 5, r->idleHi - r->idleLo);
  sqlite3_bind_int(s, 6, nNoWait);
  sqlite3_bind_int(s, 7, nQ);
  db_bind_int_or_null(s, 8, nQ>0, r->t0);
  db_bind_int_or_null(s, 9, nQ>0, r->sum);
  db_bind_int_or_null(s, 10, nQ>0, r->max);
  for(int j=0; j<HTA_NQUANT; j++){
    db_bind_int_or_null(s, 11+2*j, nQ>0, r->aLo[j]);
    db_bind_int_or_null(s, 12+2*j, nQ>0 && r->aHasHi[j], r->aHi[j]);
  }
  db_bind_int_or_null(s, 17, nQ>0, r->area);
  db_bind_int_or_null(s, 18, nQ>0, r->span);
  db_bind_int_or_null(s, 19, nQ>0 && r->hasEmpty, r->emptyNs);
  db_bind_int_or_null(s, 20, nQ>0, r->blockedNs);
  db_bind_int_or_null(s, 21, nQ>0 && full>0, full);
  db_bind_int_or_null(s, 22, nQ>0, ops);
  sqlite3_bind_text(s, 23, buf_str(&p->idle), (int)p->idle.n, SQLITE_STATIC);
  sqlite3_bind_text(s, 24, buf_str(&p->queue), (int)p->queue.n,
                    SQLITE_STATIC);
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
  Buf *b = &p->seq;
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
  buf_reset(b);
  for(int j=0; j<q->len; j++){
    if( j ) buf_putc(b, ',');
    put_int(b, q->aName[j]);
  }
  sqlite3_bind_int64(p->pText, 1, p->runId);
  sqlite3_bind_int64(p->pText, 2, e->id);
  sqlite3_bind_int(p->pText, 3, q->len);
  sqlite3_bind_text(p->pText, 4, buf_str(b), (int)b->n, SQLITE_STATIC);
  return db_step_done(p->db, p->pText, pErr) ? -1 : e->id;
}

/* A sequence of the rank by its stream and id. */
typedef struct SeqRow { int64_t stream, id; const KsSeq *q; } SeqRow;

static int cmp_seq_row(const void *a, const void *b){
  const SeqRow *x = a, *y = b;
  if( x->stream!=y->stream ) return x->stream<y->stream ? -1 : 1;
  return x->id<y->id ? -1 : x->id>y->id;
}

DEFINE_MSORT(sort_seq_row, SeqRow, cmp_seq_row)

/* The kernel_seq_stream row of the stream of a[0..n) (one stream, in id
** order). */
static int store_seq_stream(HtaSeriesStore *p, int64_t rank,
                            const SeqRow *a, int n, PfError *pErr){
  Buf *b = &p->queue;           /* free once the streams are stored */
  buf_reset(b);
  buf_putc(b, '[');
  for(int i=0; i<n; i++){
    buf_append(b, i ? ",[" : "[", i ? 2 : 1);
    put_int(b, a[i].id);
    buf_putc(b, ',');
    put_int(b, a[i].q->n);
    buf_putc(b, ',');
    put_int(b, a[i].q->ns);
    buf_putc(b, ',');
    put_int(b, a[i].q->spanNs);
    buf_putc(b, ']');
  }
  buf_putc(b, ']');
  sqlite3_bind_int64(p->pSeq, 1, p->runId);
  sqlite3_bind_int64(p->pSeq, 2, rank);
  sqlite3_bind_int64(p->pSeq, 3, a[0].stream);
  sqlite3_bind_text(p->pSeq, 4, buf_str(b), (int)b->n, SQLITE_STATIC);
  return db_step_done(p->db, p->pSeq, pErr);
}

/* The rank's sequence counts: the ids of the sequences (new ones stored
** in kernel_seq_text), then one row per stream. */
static int store_seq(HtaSeriesStore *p, int64_t rank, const HpGpu *a, int n,
                     PfError *pErr){
  int nSeq = 0, rc = 0;
  KsSeq *aSeq = kernel_seq_rank(a, n, &nSeq);
  SeqRow *aRow = xmalloc(sizeof(SeqRow)*(size_t)(nSeq+1));
  for(int i=0; i<nSeq && rc==0; i++){
    aRow[i].stream = aSeq[i].stream;
    aRow[i].q = &aSeq[i];
    aRow[i].id = seq_id(p, &aSeq[i], pErr);
    if( aRow[i].id<0 ) rc = -1;
  }
  if( rc==0 ) sort_seq_row(aRow, (size_t)nSeq);
  for(int i=0; i<nSeq && rc==0; ){
    int j = i+1;
    while( j<nSeq && aRow[j].stream==aRow[i].stream ) j++;
    rc = store_seq_stream(p, rank, aRow+i, j-i, pErr);
    i = j;
  }
  free(aRow);
  free(aSeq);
  return rc;
}

int hta_series_rank(HtaSeriesStore *p, int64_t rank, HtaSeries *pS,
                    const HpGpu *a, int n, PfError *pErr){
  for(int i=0; i<pS->nStream; i++){
    if( store_stream(p, rank, pS, &pS->aStream[i], pErr) ) return -1;
  }
  return n>0 ? store_seq(p, rank, a, n, pErr) : 0;
}
