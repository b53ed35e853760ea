/*
** rank_clock.c — per-rank clock offsets from collective end times (see
** rank_clock.h for the method and why the ends).
**
** Pipeline position: "derive", called by derive_comm.c's straggler pass.
** Memory: the observations (sorted in place), one residual per
** observation and a few per-rank arrays.
*/
#include "comm/rank_clock.h"
#include "core/msort.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

/* Iterations of the offset / reference refinement: it settles in two or
** three on real runs (one shifted rank: one); process groups of two chained
** through shared ranks halve the error each round, so 40 rounds bring an
** offset of 1000 s within a nanosecond. */
#define CLOCK_MAX_ITER 40

static int obs_cmp(const ClockObs *x, const ClockObs *y){
  if( x->group!=y->group ) return x->group<y->group ? -1 : 1;
  if( x->rank!=y->rank ) return x->rank<y->rank ? -1 : 1;
  return (x->end>y->end) - (x->end<y->end);
}
DEFINE_MSORT(obs_sort, ClockObs, obs_cmp)

static int i64_cmp(const int64_t *x, const int64_t *y){
  return (*x>*y) - (*x<*y);
}
DEFINE_MSORT(i64_sort, int64_t, i64_cmp)

/* Median of a[0..n-1] (n > 0; a is sorted in place): the mean of the two
** middle values for even n, rounded towards minus infinity. */
static int64_t median(int64_t *a, size_t n){
  int64_t lo, hi;
  i64_sort(a, n);
  lo = a[(n-1)/2];
  hi = a[n/2];
  return lo + (hi-lo)/2;
}

/*
** The residual of every observation: its end, moved by its rank's
** offset, minus the median of its group's moved ends (0 for a group of
** one).  aTmp has room for the largest group.
*/
static void residuals(const ClockObs *a, size_t n, const ClockEst *aEst,
                      int64_t *aRes, int64_t *aTmp){
  size_t i = 0;
  while( i<n ){
    size_t j = i, k;
    int64_t ref;
    while( j<n && a[j].group==a[i].group ) j++;
    for(k=i; k<j; k++) aTmp[k-i] = a[k].end - aEst[a[k].rank].offset;
    ref = median(aTmp, j-i);
    for(k=i; k<j; k++){
      aRes[k] = j-i<2 ? 0 : a[k].end - aEst[a[k].rank].offset - ref;
    }
    i = j;
  }
}

/* 1 when observation i shares its group with another observation. */
static int shared_group(const ClockObs *a, size_t n, size_t i){
  return (i>0 && a[i-1].group==a[i].group)
      || (i+1<n && a[i+1].group==a[i].group);
}

/* Per rank, the median of its residuals into aMed (0 without any); the
** number of them into aEst[].nUsed.  aBuf holds n values. */
static void rank_medians(const ClockObs *a, size_t n, const int64_t *aRes,
                         int nRank, ClockEst *aEst, int64_t *aMed,
                         int64_t *aBuf, int bAbs){
  /* observations grouped by rank through a counting pass */
  size_t *aStart = xcalloc((size_t)nRank+1, sizeof(size_t));
  size_t *aFill;
  for(size_t i=0; i<n; i++){
    if( shared_group(a, n, i) ) aStart[a[i].rank+1]++;
  }
  for(int r=0; r<nRank; r++) aStart[r+1] += aStart[r];
  aFill = xmalloc(sizeof(size_t)*(size_t)(nRank+1));
  memcpy(aFill, aStart, sizeof(size_t)*(size_t)(nRank+1));
  for(size_t i=0; i<n; i++){
    if( !shared_group(a, n, i) ) continue;
    aBuf[aFill[a[i].rank]++] = bAbs ? llabs(aRes[i]) : aRes[i];
  }
  for(int r=0; r<nRank; r++){
    size_t m = aStart[r+1]-aStart[r];
    aEst[r].nUsed = (int64_t)m;
    aMed[r] = m ? median(aBuf+aStart[r], m) : 0;
  }
  free(aStart);
  free(aFill);
}

int rank_clock_estimate(ClockObs *a, size_t n, int nRank, ClockEst *aEst){
  int64_t *aRes, *aTmp, *aMed, *aBuf;
  int nHave = 0;
  memset(aEst, 0, sizeof(ClockEst)*(size_t)nRank);
  if( n==0 || nRank<=0 ) return 0;
  obs_sort(a, n);
  aRes = xmalloc(sizeof(int64_t)*n);
  aTmp = xmalloc(sizeof(int64_t)*n);
  aBuf = xmalloc(sizeof(int64_t)*n);
  aMed = xmalloc(sizeof(int64_t)*(size_t)nRank);
  for(int it=0; it<CLOCK_MAX_ITER; it++){
    int64_t moved = 0;
    residuals(a, n, aEst, aRes, aTmp);
    rank_medians(a, n, aRes, nRank, aEst, aMed, aBuf, 0);
    for(int r=0; r<nRank; r++){
      aEst[r].offset += aMed[r];
      if( llabs(aMed[r])>moved ) moved = llabs(aMed[r]);
    }
    if( moved==0 ) break;
  }
  /* centre on the median rank among those measured */
  {
    int m = 0;
    for(int r=0; r<nRank; r++){
      if( aEst[r].nUsed>0 ) aMed[m++] = aEst[r].offset;
    }
    if( m>0 ){
      int64_t c = median(aMed, (size_t)m);
      for(int r=0; r<nRank; r++){
        if( aEst[r].nUsed>0 ){
          aEst[r].offset -= c;
          nHave++;
        }else{
          aEst[r].offset = 0;
        }
      }
    }
  }
  /* the spread left after alignment (centring moves every end alike) */
  residuals(a, n, aEst, aRes, aTmp);
  rank_medians(a, n, aRes, nRank, aEst, aMed, aBuf, 1);
  for(int r=0; r<nRank; r++) aEst[r].spread = aMed[r];
  free(aRes);
  free(aTmp);
  free(aBuf);
  free(aMed);
  return nHave;
}
