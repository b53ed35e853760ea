/*
** gate_stats.c — the paired statistics of the regression gate (see
** gate_stats.h): the signed-rank distribution, Walsh averages found by
** bisection, Student's t quantiles, and the paired shift built on them.
**
** Pipeline position: read side (comparison and history), used by
** history.c.  Pure functions: no database, no output, no randomness.
*/
#include "history/gate_stats.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PF_PI 3.14159265358979323846

/* Standard normal lower tail. */
static double norm_cdf(double x){
  return 0.5*erfc(-x/sqrt(2.0));
}

/*
** The null probabilities of W+ = 0 .. n(n+1)/2 for n pairs: each rank i
** is in W+ with probability 1/2, so p_i(w) = (p_i-1(w) + p_i-1(w - i)) / 2.
** Returns a new array of n(n+1)/2 + 1 values (caller frees).
*/
static double *sr_probs(int n){
  int64_t m = (int64_t)n*(n+1)/2;
  double *p = xmalloc(sizeof(double)*(size_t)(m+1));
  for(int64_t w=0; w<=m; w++) p[w] = 0;
  p[0] = 1;
  for(int i=1; i<=n; i++){
    int64_t top = (int64_t)i*(i+1)/2;
    for(int64_t w=top; w>=0; w--){
      p[w] = (p[w] + (w>=i ? p[w-i] : 0))/2;
    }
  }
  return p;
}

double history_sr_cdf(int n, double w){
  int64_t m = (int64_t)n*(n+1)/2;
  if( w<0 ) return 0;
  if( w>=(double)m ) return 1;
  if( n<=HIST_SR_EXACT_MAX ){
    double *p = sr_probs(n), s = 0;
    int64_t top = (int64_t)floor(w);
    for(int64_t u=0; u<=top; u++) s += p[u];
    free(p);
    return s<1 ? s : 1;
  }else{
    double mu = m/2.0, sd = sqrt((double)n*(n+1)*(2.0*n+1)/24.0);
    return norm_cdf((floor(w)+0.5-mu)/sd);
  }
}

int64_t history_sr_k(int n, double alpha){
  int64_t m = (int64_t)n*(n+1)/2, lo, hi;
  if( n<1 ) return 0;
  if( n<=HIST_SR_EXACT_MAX ){
    double *p = sr_probs(n), s = 0;
    int64_t k = 0;
    for(int64_t u=0; u<=m; u++){
      s += p[u];
      if( s>alpha ) break;
      k = u+1;                /* P(W <= u) <= alpha: k may be u + 1 */
    }
    free(p);
    return k<=m/2 ? k : m/2;
  }
  if( history_sr_cdf(n, 0)>alpha ) return 0;
  lo = 0;
  hi = m/2;
  while( lo<hi ){
    int64_t mid = lo+(hi-lo+1)/2;
    if( history_sr_cdf(n, (double)mid)<=alpha ) lo = mid;
    else hi = mid-1;
  }
  return lo+1;
}

/* How many Walsh averages of d (sorted) are <= x: for each i, the j >= i
** with d[j] <= 2x - d[i]; that bound falls as i grows (two pointers). */
static int64_t walsh_le(const double *d, int n, double x){
  int64_t c = 0;
  int j = n-1;
  for(int i=0; i<n; i++){
    while( j>=i && d[i]+d[j]>2*x ) j--;
    if( j<i ) break;
    c += j-i+1;
  }
  return c;
}

double history_kth_walsh(const double *d, int n, int64_t k){
  double lo = d[0], hi = d[n-1];
  if( walsh_le(d, n, lo)>=k ) return lo;
  /* count(lo) < k <= count(hi): the k-th value lies in (lo, hi] */
  for(int it=0; it<4000; it++){
    double mid = lo+(hi-lo)/2;
    if( !(mid>lo && mid<hi) ) break;
    if( walsh_le(d, n, mid)>=k ) hi = mid;
    else lo = mid;
  }
  return hi;
}

/*
** P(|T| <= t) for Student's t with integer df (Abramowitz and Stegun
** 26.7.3 and 26.7.4, with theta = atan(t / sqrt(df))): a finite sum of
** powers of cos(theta).
*/
static double t_central(double t, int df){
  double th = atan(t/sqrt((double)df)), c2 = cos(th)*cos(th), s = sin(th);
  double term = 1, sum = 1;
  if( df%2 ){
    if( df==1 ) return 2*th/PF_PI;
    term = cos(th);
    sum = term;
    for(int i=3; i<=df-2; i+=2){
      term *= c2*(i-1)/i;
      sum += term;
    }
    return 2/PF_PI*(th + s*sum);
  }
  for(int i=2; i<=df-2; i+=2){
    term *= c2*(i-1)/i;
    sum += term;
  }
  return s*sum;
}

double history_t_quantile(double p, int df){
  double lo = 0, hi = 1;
  if( !(p>0 && p<1) || df<1 ) return NAN;
  if( p<0.5 ) return -history_t_quantile(1-p, df);
  if( p==0.5 ) return 0;
  /* P(T <= t) = (1 + P(|T| <= t)) / 2: find t with P(|T| <= t) = 2p-1 */
  while( t_central(hi, df)<2*p-1 && hi<1e300 ) hi *= 2;
  for(int it=0; it<200; it++){
    double mid = (lo+hi)/2;
    if( t_central(mid, df)<2*p-1 ) lo = mid; else hi = mid;
  }
  return (lo+hi)/2;
}

static int cmp_double(const void *a, const void *b){
  double x = *(const double*)a, y = *(const double*)b;
  return x<y ? -1 : x>y;
}

HistShift history_paired_shift(const double *d, int n, double alpha,
                               int *pT){
  HistShift r = { NAN, NAN, NAN, 0 };
  double *s;
  int64_t m = (int64_t)n*(n+1)/2;
  if( pT ) *pT = 0;
  if( n<1 ) return r;
  s = xmalloc(sizeof(double)*(size_t)n);
  memcpy(s, d, sizeof(double)*(size_t)n);
  qsort(s, (size_t)n, sizeof(double), cmp_double);
  if( m%2 ) r.est = history_kth_walsh(s, n, (m+1)/2);
  else r.est = (history_kth_walsh(s, n, m/2)
                + history_kth_walsh(s, n, m/2+1))/2.0;
  r.k = history_sr_k(n, alpha);
  if( r.k>0 ){
    r.lo = history_kth_walsh(s, n, r.k);
    r.hi = history_kth_walsh(s, n, m+1-r.k);
  }else if( n>=2 ){
    double mean = 0, ss = 0, half;
    for(int i=0; i<n; i++) mean += s[i];
    mean /= n;
    for(int i=0; i<n; i++) ss += (s[i]-mean)*(s[i]-mean);
    half = history_t_quantile(1-alpha, n-1)*sqrt(ss/(n-1)/n);
    r.lo = mean-half;
    r.hi = mean+half;
    if( pT ) *pT = 1;
  }else{
    r.lo = -INFINITY;
    r.hi = INFINITY;
  }
  free(s);
  return r;
}
