/*
** hta_metric.c — headline numbers of the HTA analyses for one rank's GPU
** ops (see hta_metric.h): the same definitions as the views of
** 013-hta-analyses.sql, computed by sweeps over arrays.
**
** Pipeline position: "derive" (called by derive_hta.c).  No SQL here.
*/
#include "analysis/hta_metric.h"
#include "core/msort.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

/* A start (+1) or end (-1) of an op of class k, or a launch / start of
** the queue sweep (k unused). */
typedef struct HmEv { int64_t t; int d, k, ops; } HmEv;

static int cmp_ev(const void *a, const void *b){
  const HmEv *x = a, *y = b;
  if( x->t!=y->t ) return x->t<y->t ? -1 : 1;
  return y->d - x->d;                  /* +1 before -1 (launches first) */
}

DEFINE_MSORT(sort_ev, HmEv, cmp_ev)

/* Temporal breakdown and overlap slices of one device's ops a[0..n): the
** time between consecutive distinct start/end times, under the classes
** live after every start and end at the first (view hta_overlap_piece). */
static void temporal(const HpGpu *a, int n, HmEv *ev, HtaTotals *pT,
                     HtaSeries *pS){
  int m = 0, live[3] = {0, 0, 0}, aPieces[8] = {0};
  int64_t aNs[8] = {0};
  for(int i=0; i<n; i++){
    ev[m].t = a[i].ts; ev[m].d = 1; ev[m++].k = a[i].klass;
    ev[m].t = a[i].end; ev[m].d = -1; ev[m++].k = a[i].klass;
  }
  sort_ev(ev, (size_t)m);
  for(int i=0; i<m; ){
    int64_t t = ev[i].t;
    int mask;
    while( i<m && ev[i].t==t ){ live[ev[i].k] += ev[i].d; i++; }
    if( i==m ) break;
    mask = (live[HK_COMPUTE]>0) | (live[HK_COMM]>0)<<1
         | (live[HK_MEMORY]>0)<<2;
    aNs[mask] += ev[i].t - t;
    aPieces[mask]++;
  }
  for(int k=0; k<8; k++){
    pT->spanNs += aNs[k];
    if( k & 1 ) pT->computeNs += aNs[k];
    else if( k ) pT->nonComputeNs += aNs[k];
    else pT->idleNs += aNs[k];
    if( pS && aPieces[k]>0 ){
      HtaSliceRow *r;
      if( pS->nSlice==pS->nSliceAlloc ){
        pS->nSliceAlloc = pS->nSliceAlloc ? 2*pS->nSliceAlloc : 64;
        pS->aSlice = xrealloc(pS->aSlice,
                              sizeof(HtaSliceRow)*(size_t)pS->nSliceAlloc);
      }
      r = &pS->aSlice[pS->nSlice++];
      r->device = a[0].device;
      r->mask = k;
      r->ns = aNs[k];
      r->pieces = aPieces[k];
    }
  }
}

const double hta_quant[HTA_NQUANT] = {0.50, 0.75, 0.95};

void hta_series_free(HtaSeries *p){
  free(p->aIdle);
  free(p->aQueue);
  free(p->aSlice);
  free(p->aStream);
  free(p->aHist);
  memset(p, 0, sizeof(*p));
}

static void idle_push(HtaSeries *p, const HpGpu *g, int64_t prevEnd,
                      int hostWait){
  if( p->nIdle==p->nIdleAlloc ){
    p->nIdleAlloc = p->nIdleAlloc ? 2*p->nIdleAlloc : 256;
    p->aIdle = xrealloc(p->aIdle, sizeof(HtaIdleRow)*(size_t)p->nIdleAlloc);
  }
  p->aIdle[p->nIdle].g = g;
  p->aIdle[p->nIdle].prevEnd = prevEnd;
  p->aIdle[p->nIdle++].hostWait = hostWait;
}

static HtaQueueRow *queue_push(HtaSeries *p){
  if( p->nQueue==p->nQueueAlloc ){
    p->nQueueAlloc = p->nQueueAlloc ? 2*p->nQueueAlloc : 256;
    p->aQueue = xrealloc(p->aQueue,
                         sizeof(HtaQueueRow)*(size_t)p->nQueueAlloc);
  }
  return &p->aQueue[p->nQueue++];
}

static HtaStreamRow *stream_push(HtaSeries *p){
  if( p->nStream==p->nStreamAlloc ){
    p->nStreamAlloc = p->nStreamAlloc ? 2*p->nStreamAlloc : 16;
    p->aStream = xrealloc(p->aStream,
                          sizeof(HtaStreamRow)*(size_t)p->nStreamAlloc);
  }
  memset(&p->aStream[p->nStream], 0, sizeof(HtaStreamRow));
  return &p->aStream[p->nStream++];
}

/* The lengths at positions k and k+1 of the sorted lengths of the change
** points aQueue[r->queueLo..queueHi), k = (n-1)*q truncated as SQL's CAST
** does, for each quantile q; and the largest.  A histogram of the
** lengths min..max (a length is below 0 where a launch call's clock is
** after its op's: the SQL definition counts it as it comes). */
static void stream_quantiles(HtaSeries *pS, HtaStreamRow *r){
  const HtaQueueRow *aQ = pS->aQueue;
  int64_t n = r->queueHi - r->queueLo, lo = aQ[r->queueLo].len, hi = lo;
  int64_t nBin;
  for(int i=r->queueLo; i<r->queueHi; i++){
    if( aQ[i].len<lo ) lo = aQ[i].len;
    if( aQ[i].len>hi ) hi = aQ[i].len;
  }
  r->max = hi;
  nBin = hi-lo+1;
  if( pS->nHist<nBin ){
    pS->nHist = nBin;
    pS->aHist = xrealloc(pS->aHist, sizeof(int64_t)*(size_t)nBin);
  }
  memset(pS->aHist, 0, sizeof(int64_t)*(size_t)nBin);
  for(int i=r->queueLo; i<r->queueHi; i++) pS->aHist[aQ[i].len-lo]++;
  for(int j=0; j<HTA_NQUANT; j++){
    int64_t k = (int64_t)((double)(n-1)*hta_quant[j]), seen = 0, v = 0;
    while( seen+pS->aHist[v]<=k ) seen += pS->aHist[v++];
    r->aLo[j] = lo+v;                      /* position k has length lo+v */
    r->aHasHi[j] = k+1<n;
    if( k+1<n ){
      while( seen+pS->aHist[v]<=k+1 ) seen += pS->aHist[v++];
      r->aHi[j] = lo+v;
    }
  }
}

/* Idle intervals of one stream's ops a[0..n) (in start order): an op
** that starts after every earlier op ended; host wait when its launch
** call started after that. */
static void stream_idle(const HpGpu *a, int n, HtaTotals *pT, HtaSeries *pS){
  int64_t prevEnd = 0;
  for(int i=0; i<n; i++){
    if( i>0 && a[i].ts>prevEnd ){
      int host = a[i].hasLaunch && a[i].lts>prevEnd;
      pT->streamIdleNs += a[i].ts - prevEnd;
      if( host ) pT->hostWaitNs += a[i].ts - prevEnd;
      if( pS ) idle_push(pS, &a[i], prevEnd, host);
    }
    if( i==0 || a[i].end>prevEnd ) prevEnd = a[i].end;
  }
}

/* A queue entry: the first op (index k) of one launch call (rt) on the
** stream, found by sorting the launched ops by (rt, start). */
typedef struct HmEnt { int64_t rt, ts; int k; } HmEnt;

static int cmp_ent(const void *a, const void *b){
  const HmEnt *x = a, *y = b;
  if( x->rt!=y->rt ) return x->rt<y->rt ? -1 : 1;
  if( x->ts!=y->ts ) return x->ts<y->ts ? -1 : 1;
  return x->k - y->k;
}

DEFINE_MSORT(sort_ent, HmEnt, cmp_ent)

/* Ties as the view hta_queue_length orders them: time, launches first,
** then the op's position (row order within a stream). */
static int cmp_qev(const void *a, const void *b){
  const HmEv *x = a, *y = b;
  if( x->t!=y->t ) return x->t<y->t ? -1 : 1;
  if( x->d!=y->d ) return y->d - x->d;
  return x->k - y->k;
}

DEFINE_MSORT(sort_qev, HmEv, cmp_qev)

/* Launch queue of one stream a[0..n): time-weighted mean (-1 when the
** stream has no launched op), time at the limit or more, and the
** blocked flag of each entry's first op.  aEnt: room for n entries.
** With pS, the change points go to pS->aQueue and the stream's numbers
** to *pR. */
static double stream_queue(HpGpu *a, int n, HmEv *ev, HmEnt *aEnt,
                           HtaTotals *pT, HtaSeries *pS, HtaStreamRow *pR){
  int m = 0, nE = 0;
  int64_t q = 0, area = 0;
  for(int i=0; i<n; i++){
    a[i].blocked = 0;
    if( !a[i].hasLaunch ) continue;
    aEnt[nE].rt = a[i].rt; aEnt[nE].ts = a[i].ts; aEnt[nE++].k = i;
  }
  if( nE==0 ) return -1.0;
  sort_ent(aEnt, (size_t)nE);
  for(int i=0; i<nE; ){
    int k = aEnt[i].k, j = i+1;
    while( j<nE && aEnt[j].rt==aEnt[i].rt ) j++;     /* the same call */
    ev[m].t = a[k].lts; ev[m].d = 1; ev[m].ops = j-i; ev[m++].k = k;
    ev[m].t = a[k].ts; ev[m].d = -1; ev[m].ops = j-i; ev[m++].k = k;
    i = j;
  }
  pT->nQueueStream++;
  if( pR ) pR->queueLo = pS->nQueue;
  sort_qev(ev, (size_t)m);
  for(int i=0; i<m; i++){
    int64_t full = a[ev[i].k].qFull;
    if( ev[i].d>0 && full>0 && q>=full ) a[ev[i].k].blocked = 1;
    q += ev[i].d;
    if( pR ){
      HtaQueueRow *r = queue_push(pS);
      r->ts = ev[i].t;
      r->len = q;
      r->full = full;
      r->ops = ev[i].ops;
      pR->sum += q;
      if( q==0 ) pR->hasEmpty = 1;
    }
    if( i+1<m ){
      int64_t len = ev[i+1].t - ev[i].t;
      area += q*len;
      if( full>0 && q>=full ){
        pT->blockedNs += len;
        if( pR ) pR->blockedNs += len;
      }
      if( pR && q==0 ) pR->emptyNs += len;
    }
  }
  if( pR ){
    pR->queueHi = pS->nQueue;
    pR->area = area;
    pR->t0 = ev[0].t;
    pR->span = ev[m-1].t - ev[0].t;
    stream_quantiles(pS, pR);
  }
  return (double)area / (double)(ev[m-1].t-ev[0].t>1 ? ev[m-1].t-ev[0].t : 1);
}

void hta_metric_rank(HpGpu *a, int n, HtaTotals *pT, HtaSeries *pS){
  HmEv *ev = xmalloc(sizeof(HmEv)*(2*(size_t)n+1));
  HmEnt *aEnt = xmalloc(sizeof(HmEnt)*((size_t)n+1));
  int bestN = 0;
  double bestQ = -1.0;
  for(int lo=0; lo<n; ){               /* per device */
    int hi = lo;
    while( hi<n && a[hi].device==a[lo].device ) hi++;
    temporal(a+lo, hi-lo, ev, pT, pS);
    for(int s=lo; s<hi; ){             /* per stream of the device */
      int e = s;
      double tw;
      HtaStreamRow *pR = NULL;
      while( e<hi && a[e].stream==a[s].stream ) e++;
      if( pS ){
        pR = stream_push(pS);
        pR->device = a[s].device;
        pR->stream = a[s].stream;
        pR->idleLo = pS->nIdle;
      }
      stream_idle(a+s, e-s, pT, pS);
      if( pR ) pR->idleHi = pS->nIdle;
      tw = stream_queue(a+s, e-s, ev, aEnt, pT, pS, pR);
      if( pR && pR->idleHi==pR->idleLo && pR->queueHi==pR->queueLo ){
        pS->nStream--;                 /* nothing of it to store */
      }
      if( e-s>bestN ){ bestN = e-s; bestQ = tw; }
      s = e;
    }
    lo = hi;
  }
  if( bestN>0 && bestQ>=0 ){
    pT->queueMeanSum += bestQ;
    pT->nQueueRank++;
  }
  free(ev);
  free(aEnt);
}
