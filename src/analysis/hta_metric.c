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

/* A start (+1) or end (-1) of an op of class k, or a launch / start of
** the queue sweep (k unused). */
typedef struct HmEv { int64_t t; int d, k; } HmEv;

static int cmp_ev(const void *a, const void *b){
  const HmEv *x = a, *y = b;
  if( x->t!=y->t ) return x->t<y->t ? -1 : 1;
  return y->d - x->d;                  /* +1 before -1 (launches first) */
}

DEFINE_MSORT(sort_ev, HmEv, cmp_ev)

/* Temporal breakdown of one device's ops a[0..n). */
static void temporal(const HpGpu *a, int n, HmEv *ev, HtaTotals *pT){
  int m = 0, live[3] = {0, 0, 0};
  for(int i=0; i<n; i++){
    ev[m].t = a[i].ts; ev[m].d = 1; ev[m++].k = a[i].klass;
    ev[m].t = a[i].end; ev[m].d = -1; ev[m++].k = a[i].klass;
  }
  sort_ev(ev, (size_t)m);
  for(int i=0; i<m; ){
    int64_t t = ev[i].t, len;
    while( i<m && ev[i].t==t ){ live[ev[i].k] += ev[i].d; i++; }
    if( i==m ) break;
    len = ev[i].t - t;
    pT->spanNs += len;
    if( live[HK_COMPUTE]>0 ) pT->computeNs += len;
    else if( live[HK_COMM]>0 || live[HK_MEMORY]>0 ) pT->nonComputeNs += len;
    else pT->idleNs += len;
  }
}

/* Idle intervals of one stream's ops a[0..n) (in start order). */
static void stream_idle(const HpGpu *a, int n, HtaTotals *pT){
  int64_t prevEnd = 0;
  for(int i=0; i<n; i++){
    if( i>0 && a[i].ts>prevEnd ){
      pT->streamIdleNs += a[i].ts - prevEnd;
      if( a[i].hasLaunch && a[i].lts>prevEnd ){
        pT->hostWaitNs += a[i].ts - prevEnd;
      }
    }
    if( i==0 || a[i].end>prevEnd ) prevEnd = a[i].end;
  }
}

/* Launch queue of one stream: time-weighted mean (NaN-free: -1 when the
** stream has no launched op) and time at queueFull or more. */
static double stream_queue(const HpGpu *a, int n, HmEv *ev, int64_t full,
                           HtaTotals *pT){
  int m = 0;
  int64_t q = 0, area = 0;
  for(int i=0; i<n; i++){
    if( !a[i].hasLaunch ) continue;
    ev[m].t = a[i].lts; ev[m].d = 1; ev[m++].k = 0;
    ev[m].t = a[i].ts; ev[m].d = -1; ev[m++].k = 0;
  }
  if( m==0 ) return -1.0;
  pT->nQueueStream++;
  sort_ev(ev, (size_t)m);
  for(int i=0; i<m; i++){
    q += ev[i].d;
    if( i+1<m ){
      int64_t len = ev[i+1].t - ev[i].t;
      area += q*len;
      if( q>=full ) pT->blockedNs += len;
    }
  }
  return (double)area / (double)(ev[m-1].t-ev[0].t>1 ? ev[m-1].t-ev[0].t : 1);
}

void hta_metric_rank(const HpGpu *a, int n, int64_t queueFull,
                     HtaTotals *pT){
  HmEv *ev = xmalloc(sizeof(HmEv)*(2*(size_t)n+1));
  int bestN = 0;
  double bestQ = -1.0;
  for(int lo=0; lo<n; ){               /* per device */
    int hi = lo;
    while( hi<n && a[hi].device==a[lo].device ) hi++;
    temporal(a+lo, hi-lo, ev, pT);
    for(int s=lo; s<hi; ){             /* per stream of the device */
      int e = s;
      double tw;
      while( e<hi && a[e].stream==a[s].stream ) e++;
      stream_idle(a+s, e-s, pT);
      tw = stream_queue(a+s, e-s, ev, queueFull, pT);
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
}
