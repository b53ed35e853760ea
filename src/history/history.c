/*
** history.c — named baselines, the statistics and the decision of the
** regression gate (`profan check`) and the loading of one metric's check
** (paired samples, the work evidence of gate_work.c, the history values).
** The paired statistics are gate_stats.c's, the choice of the history's
** runs history_window.c's.
**
** Pipeline position: read side (comparison and history).  The metrics,
** steady steps, per-step samples and fingerprints are plain SQL (views
** run_metric, step_steady, run_step_sample, run_fingerprint in
** schema/011-steady-steps.sql); this file holds what SQL cannot do
** comfortably: rank statistics over per-step samples (Hodges-Lehmann
** shift, its exact interval), a robust spread of a run series and the
** verdict built from them.  cmd_history.c parses options and prints.
*/
#include "history/history.h"
#include "history/gate_stats.h"
#include "history/gate_work.h"
#include "history/history_source.h"
#include "core/db.h"
#include "core/runref.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t history_resolve_baseline(sqlite3 *db, const char *zRef, PfError *pErr){
  sqlite3_stmt *p;
  int64_t id = -1;
  if( zRef==NULL || zRef[0]==0 ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "empty baseline reference");
    return -1;
  }
  p = db_prepare(db, "SELECT run_id FROM baseline WHERE name=?1", pErr);
  if( p==NULL ) return -1;
  sqlite3_bind_text(p, 1, zRef, -1, SQLITE_STATIC);
  if( sqlite3_step(p)==SQLITE_ROW ) id = sqlite3_column_int64(p, 0);
  sqlite3_finalize(p);
  if( id>=0 ) return id;
  return runref_resolve(db, zRef, pErr);
}

/* qsort comparator for doubles, ascending. */
static int cmp_double(const void *a, const void *b){
  double x = *(const double*)a, y = *(const double*)b;
  return x<y ? -1 : x>y;
}

double history_median(double *a, int n){
  if( n<=0 ) return NAN;
  qsort(a, (size_t)n, sizeof(double), cmp_double);
  return n%2 ? a[n/2] : (a[n/2-1]+a[n/2])/2.0;
}

double history_mad(double *a, int n){
  double med, mad, *d;
  if( n<=0 ) return NAN;
  med = history_median(a, n);
  d = xmalloc(sizeof(double)*(size_t)n);
  for(int i=0; i<n; i++) d[i] = fabs(a[i]-med);
  mad = history_median(d, n);
  free(d);
  return mad;
}

double history_robust_z(double x, double *a, int n){
  double med, s;
  if( n<=0 ) return NAN;
  s = 1.4826*history_mad(a, n);          /* sorts a: median is then cheap */
  med = history_median(a, n);
  if( s<=0 ) s = fabs(med)>0 ? 1e-6*fabs(med) : 1e-12;
  return (x-med)/s;
}

/* One pooled observation for ranking: its value and its sample. */
typedef struct Obs {
  double v;
  int isB;
} Obs;

static int cmp_obs(const void *a, const void *b){
  return cmp_double(&((const Obs*)a)->v, &((const Obs*)b)->v);
}

HistMw history_mann_whitney(const double *a, int na, const double *b, int nb){
  HistMw r = { NAN, NAN, NAN };
  int n = na+nb;
  Obs *o;
  double rankSumB = 0, tieSum = 0, mean, var, diff;
  if( na<1 || nb<1 ) return r;
  o = xmalloc(sizeof(Obs)*(size_t)n);
  for(int i=0; i<na; i++){ o[i].v = a[i]; o[i].isB = 0; }
  for(int i=0; i<nb; i++){ o[na+i].v = b[i]; o[na+i].isB = 1; }
  qsort(o, (size_t)n, sizeof(Obs), cmp_obs);
  /* average ranks over ties; accumulate t^3 - t for the variance */
  for(int i=0; i<n; ){
    int j = i;
    double rank;
    while( j<n && o[j].v==o[i].v ) j++;
    rank = (i+1+j)/2.0;                 /* mean of ranks i+1 .. j */
    for(int k=i; k<j; k++) if( o[k].isB ) rankSumB += rank;
    tieSum += (double)(j-i)*(j-i)*(j-i) - (j-i);
    i = j;
  }
  free(o);
  r.u = rankSumB - nb*(nb+1)/2.0;
  if( na<2 || nb<2 ) return r;
  mean = na*(double)nb/2.0;
  var = na*(double)nb/12.0*((n+1) - tieSum/((double)n*(n-1)));
  if( var<=0 ){                          /* every value equal */
    r.z = 0;
    r.p = 1;
    return r;
  }
  diff = r.u-mean;
  if( fabs(diff)<=0.5 ) diff = 0;
  else diff -= diff>0 ? 0.5 : -0.5;      /* continuity correction */
  r.z = diff/sqrt(var);
  r.p = erfc(fabs(r.z)/sqrt(2.0));
  return r;
}

/* ------------------------------------------------ Hodges-Lehmann shift */

/* Standard normal lower tail. */
static double norm_cdf(double x){
  return 0.5*erfc(-x/sqrt(2.0));
}

/*
** The null distribution of U for sizes n, m (no ties): counts of U = u
** for u = 0 .. n*m, the coefficients of the Gaussian binomial
** [n+m choose n]_q = prod_{i=1..s} (1 - q^(t+i)) / (1 - q^i) with
** s = min(n, m), t = max(n, m).  Returns a new array (caller frees).
** The lower coefficients depend only on lower ones, so the tails keep
** full precision.
*/
static double *mw_counts(int n, int m){
  int s = n<m ? n : m, t = n<m ? m : n;
  int64_t nm = (int64_t)n*m;
  double *c = xmalloc(sizeof(double)*(size_t)(nm+1));
  for(int64_t u=0; u<=nm; u++) c[u] = 0;
  c[0] = 1;
  for(int i=1; i<=s; i++){
    int64_t deg = (int64_t)i*t;           /* degree after this factor */
    for(int64_t u=deg; u>=t+i; u--) c[u] -= c[u-(t+i)];
    for(int64_t u=i; u<=deg; u++) c[u] += c[u-i];
  }
  return c;
}

double history_mw_cdf(int n, int m, double u){
  int64_t nm = (int64_t)n*m;
  double mean, sd;
  if( n<=0 || m<=0 ) return NAN;
  if( u<0 ) return 0;
  if( u>=(double)nm ) return 1;
  if( nm<=HIST_EXACT_MAX ){
    double *c = mw_counts(n, m), tot = 0, below = 0;
    for(int64_t v=0; v<=nm; v++){
      tot += c[v];
      if( (double)v<=u ) below += c[v];
    }
    free(c);
    return below/tot;
  }
  mean = nm/2.0;
  sd = sqrt(nm*(double)(n+m+1)/12.0);
  return norm_cdf((floor(u)+0.5-mean)/sd);
}

int64_t history_hl_k(int n, int m, double alpha){
  int64_t nm = (int64_t)n*m, lo, hi;
  if( n<=0 || m<=0 || !(alpha>0) ) return 0;
  if( nm<=HIST_EXACT_MAX ){
    double *c = mw_counts(n, m), tot = 0, cum = 0;
    int64_t k = 0;
    for(int64_t v=0; v<=nm; v++) tot += c[v];
    /* k = the number of u with P(U <= u) <= alpha (u = 0 .. k-1) */
    for(int64_t v=0; v<=nm/2; v++){
      cum += c[v];
      if( cum/tot > alpha*(1+1e-12) ) break;
      k = v+1;
    }
    free(c);
    return k;
  }
  /* normal approximation: the largest u with cdf(u) <= alpha, plus 1 */
  if( history_mw_cdf(n, m, 0)>alpha ) return 0;
  lo = 0;
  hi = nm/2;
  while( lo<hi ){
    int64_t mid = lo+(hi-lo+1)/2;
    if( history_mw_cdf(n, m, (double)mid)<=alpha ) lo = mid;
    else hi = mid-1;
  }
  return lo+1;
}

/* How many differences b[j] - a[i] are <= x (a, b sorted ascending). */
static int64_t count_le(const double *a, int na, const double *b, int nb,
                        double x){
  int64_t n = 0;
  int i = 0;
  for(int j=0; j<nb; j++){
    while( i<na && b[j]-a[i]>x ) i++;
    n += na-i;
  }
  return n;
}

double history_kth_diff(const double *a, int na, const double *b, int nb,
                     int64_t k){
  double lo = b[0]-a[na-1], hi = b[nb-1]-a[0];
  if( count_le(a, na, b, nb, lo)>=k ) return lo;
  /* count(lo) < k <= count(hi): close in on the k-th value, which lies
  ** in (lo, hi]; once lo and hi are adjacent doubles it is hi */
  for(int it=0; it<4000; it++){
    double mid = lo+(hi-lo)/2;
    if( !(mid>lo && mid<hi) ) break;
    if( count_le(a, na, b, nb, mid)>=k ) hi = mid;
    else lo = mid;
  }
  return hi;
}

/* A sorted copy of a[0..n) (caller frees). */
static double *sorted_copy(const double *a, int n){
  double *c = xmalloc(sizeof(double)*(size_t)n);
  memcpy(c, a, sizeof(double)*(size_t)n);
  qsort(c, (size_t)n, sizeof(double), cmp_double);
  return c;
}

HistShift history_hl_shift(const double *a, int na, const double *b, int nb,
                        double alpha){
  HistShift r = { NAN, NAN, NAN, 0 };
  double *sa, *sb;
  int64_t nm = (int64_t)na*nb;
  if( na<1 || nb<1 ) return r;
  sa = sorted_copy(a, na);
  sb = sorted_copy(b, nb);
  if( nm%2 ) r.est = history_kth_diff(sa, na, sb, nb, (nm+1)/2);
  else r.est = (history_kth_diff(sa, na, sb, nb, nm/2)
                + history_kth_diff(sa, na, sb, nb, nm/2+1))/2.0;
  r.k = history_hl_k(na, nb, alpha);
  if( r.k>0 ){
    r.lo = history_kth_diff(sa, na, sb, nb, r.k);
    r.hi = history_kth_diff(sa, na, sb, nb, nm+1-r.k);
  }else{
    r.lo = -INFINITY;
    r.hi = INFINITY;
  }
  free(sa);
  free(sb);
  return r;
}

/* ------------------------------------------------------------ the gate */

const char *history_verdict_name(GateVerdict v){
  static const char *az[] = { "ok", "improved", "noise", "inconclusive",
                              "regression", "missing", "not comparable" };
  return (unsigned)v<sizeof(az)/sizeof(az[0]) ? az[v] : "?";
}

/* 1 when all n values are > 0 (and finite). */
static int all_positive(const double *a, int n){
  for(int i=0; i<n; i++) if( !(a[i]>0) || !isfinite(a[i]) ) return 0;
  return 1;
}

/*
** The paired differences of sa and sb (in->paired, nA == nB) into a new
** array (caller frees): log ratios when every sample is positive, else
** differences relative to ref.
*/
static double *paired_diffs(const GateIn *in, int logs, double ref){
  double *d = xmalloc(sizeof(double)*(size_t)(in->nA>0 ? in->nA : 1));
  for(int i=0; i<in->nA; i++){
    d[i] = logs ? log(in->sb[i]/in->sa[i]) : (in->sb[i]-in->sa[i])/ref;
  }
  return d;
}

/* The shift of one level: paired (one sample of differences d) or two
** samples x, y; *pT set when the interval is Student's t. */
static HistShift shift_of(const GateIn *in, const double *d,
                          const double *x, const double *y, double alpha,
                          int *pT){
  *pT = 0;
  if( in->paired ) return history_paired_shift(d, in->nA, alpha, pT);
  return history_hl_shift(x, in->nA, y, in->nB, alpha);
}

/*
** The shift of the samples as % of the baseline, with its interval at
** alpha and at alphaOk: on log ratios when every sample is positive (a
** 20 % slowdown is +20 % at any speed), else on differences relative to
** |median of a|.  Paired samples: the shift of their differences.
*/
static void sample_shift(const GateIn *in, GateOut *o){
  HistShift h, h2;
  double aOk = in->alphaOk>0 && in->alphaOk<in->alpha ? in->alphaOk
                                                      : in->alpha;
  int logs = all_positive(in->sa, in->nA) && all_positive(in->sb, in->nB);
  int t2;
  double ref = 1, *x, *y, *d = NULL;
  if( logs ){
    x = xmalloc(sizeof(double)*(size_t)in->nA);
    y = xmalloc(sizeof(double)*(size_t)in->nB);
    for(int i=0; i<in->nA; i++) x[i] = log(in->sa[i]);
    for(int i=0; i<in->nB; i++) y[i] = log(in->sb[i]);
  }else{
    double *c = sorted_copy(in->sa, in->nA);
    ref = fabs(history_median(c, in->nA));
    free(c);
    if( ref==0 ) ref = 1;
    x = (double*)in->sa;
    y = (double*)in->sb;
  }
  if( in->paired ) d = paired_diffs(in, logs, ref);
  /* two-sample differences of raw values are relative to ref below */
  h = shift_of(in, d, x, y, in->alpha, &o->tInterval);
  h2 = shift_of(in, d, x, y, aOk, &t2);
  o->paired = in->paired;
  if( logs ){
    o->shiftPct = 100.0*expm1(h.est);
    o->loPct = 100.0*expm1(h.lo);
    o->hiPct = 100.0*expm1(h.hi);
    o->lo2Pct = 100.0*expm1(h2.lo);
    o->hi2Pct = 100.0*expm1(h2.hi);
    free(x);
    free(y);
  }else{
    double f = in->paired ? 100.0 : 100.0/ref;
    o->shiftPct = f*h.est;
    o->loPct = f*h.lo;
    o->hiPct = f*h.hi;
    o->lo2Pct = f*h2.lo;
    o->hi2Pct = f*h2.hi;
  }
  free(d);
}

/* The work evidence's shift and interval: over the log ratios per step
** when they are enough for a distribution-free interval, else over the
** matched pairs' (history.h: history_gate). */
static void work_shift(const GateIn *in, GateOut *o){
  int t;
  HistShift h;
  o->wPct = o->wLoPct = o->wHiPct = NAN;
  o->wByPair = 0;
  if( in->sw==NULL || in->nW<in->minSteps || in->nW<1 ) return;
  if( history_sr_k(in->nW, in->alpha)==0 && in->sp!=NULL
      && in->nP>=in->nW && in->nP<=INT_MAX ){
    h = history_paired_shift(in->sp, (int)in->nP, in->alpha, &t);
    o->wByPair = 1;
  }else{
    h = history_paired_shift(in->sw, in->nW, in->alpha, &t);
  }
  o->wPct = 100.0*expm1(h.est);
  o->wLoPct = 100.0*expm1(h.lo);
  o->wHiPct = 100.0*expm1(h.hi);
}

/* Slack for "reaches the threshold": rounding of microsecond stamps. */
#define GATE_EPS 1e-9

/*
** The step test in one bad direction d (1 or -1) on the shift and its
** two intervals of o (in %) and the work evidence (when o->wPct is a
** number) against the threshold thr (in %); *pzWhy gets the reason in
** words (static text).  The rule is history_gate()'s.
*/
static GateVerdict step_verdict(int d, const GateOut *o, double thr,
                                const char **pzWhy){
  double bEst = d*o->shiftPct;
  double bLo = d>0 ? o->loPct : -o->hiPct, bHi = d>0 ? o->hiPct : -o->loPct;
  double bHi2 = d>0 ? o->hi2Pct : -o->lo2Pct;
  double t = thr - GATE_EPS*(1+thr);
  int hasW = !isnan(o->wPct);
  double wEst = d*o->wPct;
  double wLo = d>0 ? o->wLoPct : -o->wHiPct, wHi = d>0 ? o->wHiPct
                                                       : -o->wLoPct;
  if( bLo>0 && bHi>=t && bEst>=t/2 ){
    *pzWhy = ": worse for sure, and nearer the threshold than no change";
    return GATE_REGRESSION;
  }
  if( bHi<t && bEst<t/2 ){
    if( bHi<0 && bEst<=-t ){
      *pzWhy = ": better beyond the threshold";
      return GATE_IMPROVED;
    }
    *pzWhy = ": the interval stays below the threshold";
    return GATE_OK;
  }
  if( bHi<t && bHi2<t ){
    *pzWhy = ": the wider interval stays below the threshold too";
    return GATE_OK;
  }
  if( hasW && bHi>=t && bEst>=t/2 && wLo>0 && wEst>=t/2 ){
    *pzWhy = ": the shift is nearer the threshold than no change, and the"
             " GPU work of the same steps is surely slower too";
    return GATE_REGRESSION;
  }
  if( hasW && bEst<t/2 && wHi<t/2 ){
    *pzWhy = ": the shift is nearer no change than the threshold, and the"
             " GPU work of the same steps surely changed by less than half"
             " of it: the slower steps are stalls outside the GPU work";
    return GATE_OK;
  }
  if( bHi<t ){
    *pzWhy = hasW
      ? ": the interval stays below the threshold but the shift is nearer"
        " the threshold than no change, and the GPU work does not confirm"
        " it; more steps would tell"
      : ": the interval stays below the threshold but the shift is"
        " nearer the threshold than no change; more steps would tell";
  }else if( bLo>0 ){
    *pzWhy = hasW && bEst>=t/2
      ? ": worse for sure, but the GPU work of the same steps is not"
        " surely slower: the time went outside the kernels (host, data"
        " loading, stalls); more steps or a history of comparable runs"
        " (--same-tag) would tell"
      : ": worse for sure, but the shift is nearer no change than the"
        " threshold; the interval reaches it; more steps or a history of"
        " comparable runs (--same-tag) would tell";
  }else if( hasW && bEst>=t/2 ){
    *pzWhy = ": the interval reaches the threshold and includes no change,"
             " and the GPU work of the same steps is not surely slower;"
             " more steps or a history of comparable runs (--same-tag)"
             " would tell";
  }else{
    *pzWhy = ": the interval reaches the threshold and includes no change;"
             " the steps can neither rule out nor confirm a regression;"
             " more steps or a history of comparable runs (--same-tag)"
             " would tell";
  }
  return GATE_INCONCLUSIVE;
}

/* The value test in one bad direction d: only the change is known. */
static GateVerdict value_verdict(int d, double changePct, double thr,
                                 int fewSteps){
  double c = d*changePct, t = thr - GATE_EPS*(1+thr);
  /* a step metric with too few steps to measure their noise: a change
  ** nearer the threshold than no change cannot be told from noise (the
  ** step test's T/2 line); other metrics: within the threshold is ok */
  if( c>=(fewSteps ? t/2 : t) ) return GATE_INCONCLUSIVE;
  return c<=-t ? GATE_IMPROVED : GATE_OK;
}

/* Severity order for two-sided metrics: the worse verdict wins. */
static int severity(GateVerdict v){
  return v==GATE_REGRESSION ? 3 : v==GATE_INCONCLUSIVE ? 2 : 1;
}

/*
** Worse of the two directions (dir 0) or the one direction; *pzWhy gets
** the step test's reason of the direction kept ("" for values).
*/
static GateVerdict both_ways(const GateIn *in, const GateOut *o, int steps,
                             const char **pzWhy){
  GateVerdict v[2];
  const char *az[2] = { "", "" };
  int nd = in->dir==0 ? 2 : 1;
  for(int i=0; i<nd; i++){
    int d = in->dir==0 ? (i==0 ? 1 : -1) : in->dir;
    v[i] = steps ? step_verdict(d, o, in->thrPct, &az[i])
                 : value_verdict(d, o->changePct, in->thrPct,
                                 in->nA>0 || in->nB>0);
  }
  *pzWhy = az[0];
  if( nd==1 ) return v[0];
  /* one direction improved makes the other one worse: never improved */
  if( severity(v[1])>severity(v[0]) ){
    v[0] = v[1];
    *pzWhy = az[1];
  }
  return v[0];
}

/* The history test over a regression or inconclusive verdict. */
static void history_test(const GateIn *in, GateOut *o){
  double *h, bz, bc;
  int n = in->nHist;
  if( n<in->minHistory || n<1 ) return;
  h = xmalloc(sizeof(double)*(size_t)n);
  memcpy(h, in->hist, sizeof(double)*(size_t)n);
  o->z = history_robust_z(in->b, h, n);
  free(h);
  o->usedHist = n;
  if( o->v!=GATE_REGRESSION && o->v!=GATE_INCONCLUSIVE ) return;
  bz = in->dir==0 ? fabs(o->z) : in->dir*o->z;
  bc = in->dir==0 ? fabs(o->changePct) : in->dir*o->changePct;
  if( bz>in->zMax && bc>=in->thrPct - GATE_EPS*(1+in->thrPct) ){
    size_t len = strlen(o->zReason);
    o->v = GATE_REGRESSION;
    snprintf(o->zReason+len, sizeof(o->zReason)-len,
             "; outside %d comparable runs (robust z %.2f > %g)", n, o->z,
             in->zMax);
  }else{
    o->v = GATE_NOISE;
    snprintf(o->zReason, sizeof(o->zReason), "%+.2f%%, within the "
             "run-to-run noise of %d comparable runs (robust z %.2f, "
             "limit %g)", o->changePct, n, o->z, in->zMax);
  }
}

void history_gate(const GateIn *in, GateOut *o){
  memset(o, 0, sizeof(*o));
  o->changePct = o->shiftPct = o->loPct = o->hiPct = o->z = NAN;
  o->lo2Pct = o->hi2Pct = NAN;
  o->wPct = o->wLoPct = o->wHiPct = NAN;
  if( !in->comparable ){
    o->v = GATE_NOT_COMPARABLE;
    snprintf(o->zReason, sizeof(o->zReason), "the run is not the "
             "baseline's workload");
    return;
  }
  if( !in->hasA || !in->hasB ){
    o->v = GATE_MISSING;
    snprintf(o->zReason, sizeof(o->zReason), "no value in the %s",
             !in->hasA && !in->hasB ? "baseline nor the run"
             : !in->hasA ? "baseline" : "run");
    return;
  }
  if( in->a!=0 ) o->changePct = 100.0*(in->b-in->a)/fabs(in->a);
  else o->changePct = in->b==0 ? 0 : (in->b>0 ? INFINITY : -INFINITY);
  if( in->nA>=in->minSteps && in->nB>=in->minSteps && in->nA>0
      && in->nB>0 ){
    const char *zWhy;
    char zN[64], zW[160] = "";
    sample_shift(in, o);
    work_shift(in, o);
    o->v = both_ways(in, o, 1, &zWhy);
    if( in->paired ){
      snprintf(zN, sizeof(zN), "%d steps paired%s", in->nA,
               o->tInterval ? ", t interval" : "");
    }else{
      snprintf(zN, sizeof(zN), "%d vs %d steps", in->nA, in->nB);
    }
    if( !isnan(o->wPct) ){
      snprintf(zW, sizeof(zW), "; GPU work %+.2f%% [%+.2f%%, %+.2f%%] (%lld"
               " pairs in %d steps%s)", o->wPct, o->wLoPct, o->wHiPct,
               (long long)in->nWorkPairs, in->nW,
               o->wByPair ? ", interval over pairs" : "");
    }
    snprintf(o->zReason, sizeof(o->zReason), "steady steps %+.2f%% "
             "[%+.2f%%, %+.2f%%] (%s)%s%s", o->shiftPct, o->loPct,
             o->hiPct, zN, zW, zWhy);
  }else{
    const char *zWhy;           /* empty for the value test */
    o->v = both_ways(in, o, 0, &zWhy);
    (void)zWhy;
    if( in->nA>0 || in->nB>0 ){
      snprintf(o->zReason, sizeof(o->zReason), "%+.2f%%; too few steady "
               "steps to tell noise (%d in the baseline, %d in the run, "
               "the step test needs %d)", o->changePct, in->nA, in->nB,
               in->minSteps);
    }else{
      snprintf(o->zReason, sizeof(o->zReason), "%+.2f%%; no per-step "
               "samples for this metric", o->changePct);
    }
    if( o->v==GATE_INCONCLUSIVE && in->nHist<in->minHistory ){
      size_t len = strlen(o->zReason);
      snprintf(o->zReason+len, sizeof(o->zReason)-len, " and %d comparable "
               "runs in the history (the noise test needs %d)", in->nHist,
               in->minHistory);
    }
  }
  history_test(in, o);
}

/* ------------------------------------------------------- parameters */

double history_gate_param(sqlite3 *db, const char *zName, double dflt){
  sqlite3_stmt *s = NULL;
  double v = dflt;
  if( sqlite3_prepare_v2(db, "SELECT value FROM gate_param WHERE name=?1",
                         -1, &s, NULL)!=SQLITE_OK ){
    sqlite3_finalize(s);
    return dflt;
  }
  sqlite3_bind_text(s, 1, zName, -1, SQLITE_STATIC);
  if( sqlite3_step(s)==SQLITE_ROW ) v = sqlite3_column_double(s, 0);
  sqlite3_finalize(s);
  return v;
}

/*
** Values of one query binding ?1 (int64) and ?2 (text) into a new array
** (caller frees; NULL when none); *pn gets the count.  With pSteps, the
** query's second column (an integer: the step) into *pSteps the same
** way, and with pSteady its third (the steady flag) into *pSteady.  -1 on
** error.
*/
static int load_values2(sqlite3 *db, const char *zSql, int64_t id,
                        const char *z, double **pa, int64_t **pSteps,
                        int **pSteady, int *pn, PfError *pErr){
  sqlite3_stmt *s = db_prepare(db, zSql, pErr);
  double *a = NULL;
  int64_t *st = NULL;
  int *sy = NULL;
  int n = 0, nAlloc = 0, rc;
  *pa = NULL;
  if( pSteps ) *pSteps = NULL;
  if( pSteady ) *pSteady = NULL;
  *pn = 0;
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, id);
  sqlite3_bind_text(s, 2, z, -1, SQLITE_STATIC);
  while( (rc = sqlite3_step(s))==SQLITE_ROW ){
    if( sqlite3_column_type(s, 0)==SQLITE_NULL ) continue;
    if( n==nAlloc ){
      nAlloc = nAlloc ? 2*nAlloc : 64;
      a = xrealloc(a, sizeof(double)*(size_t)nAlloc);
      if( pSteps ) st = xrealloc(st, sizeof(int64_t)*(size_t)nAlloc);
      if( pSteady ) sy = xrealloc(sy, sizeof(int)*(size_t)nAlloc);
    }
    a[n] = sqlite3_column_double(s, 0);
    if( pSteps ) st[n] = sqlite3_column_int64(s, 1);
    if( pSteady ) sy[n] = sqlite3_column_int(s, 2)!=0;
    n++;
  }
  sqlite3_finalize(s);
  if( rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "%s", sqlite3_errmsg(db));
    free(a);
    free(st);
    free(sy);
    return -1;
  }
  *pa = a;
  if( pSteps ) *pSteps = st;
  if( pSteady ) *pSteady = sy;
  *pn = n;
  return 0;
}

static int load_values(sqlite3 *db, const char *zSql, int64_t id,
                       const char *z, double **pa, int *pn, PfError *pErr){
  return load_values2(db, zSql, id, z, pa, NULL, NULL, pn, pErr);
}

static const char zValueSql[] =
  "SELECT value FROM run_metric WHERE run_id=?1 AND metric=?2";

/* One metric's value in run id: 0 absent, 1 present, -1 error. */
static int load_value(sqlite3 *db, int64_t id, const char *zMetric,
                      double *pv, PfError *pErr){
  double *v;
  int n;
  if( load_values(db, zValueSql, id, zMetric, &v, &n, pErr) ) return -1;
  if( n>0 ) *pv = v[0];
  free(v);
  return n>0;
}

int history_same_schedule(sqlite3 *db, int64_t idA, int64_t idB,
                          PfError *pErr){
  sqlite3_stmt *s = db_prepare(db,
    db_statement("history-same-schedule"), pErr);
  int r = 0;
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, idA);
  sqlite3_bind_int64(s, 2, idB);
  if( sqlite3_step(s)==SQLITE_ROW ){
    int64_t na = sqlite3_column_int64(s, 0), nb = sqlite3_column_int64(s, 1);
    r = na>0 && na==nb && sqlite3_column_int64(s, 2)==na;
  }else{
    pf_error_set(pErr, ERRPOS_NONE, 0, "%s", sqlite3_errmsg(db));
    r = -1;
  }
  sqlite3_finalize(s);
  return r;
}

/*
** Keep the samples of the steps both runs have (a and b sorted by step)
** that are steady in either run (yA, yB: a step warm-up or cut in both
** stays out, one the run's change made look like warm-up stays in): in
** place, in step order; those steps into *paStep (caller frees).
** Returns their count.
*/
static int pair_by_step(double *a, const int64_t *sa, const int *yA, int na,
                        double *b, const int64_t *sb, const int *yB, int nb,
                        int64_t **paStep){
  int i = 0, j = 0, n = 0;
  int64_t *st = xmalloc(sizeof(int64_t)*(size_t)(na>0 ? na : 1));
  while( i<na && j<nb ){
    if( sa[i]<sb[j] ){ i++; continue; }
    if( sa[i]>sb[j] ){ j++; continue; }
    if( yA[i] || yB[j] ){
      a[n] = a[i];
      b[n] = b[j];
      st[n] = sa[i];
      n++;
    }
    i++;
    j++;
  }
  *paStep = st;
  return n;
}

/* Keep the steady samples of one run, in place; returns their count. */
static int keep_steady(double *a, const int *y, int n){
  int k = 0;
  for(int i=0; i<n; i++) if( y[i] ) a[k++] = a[i];
  return k;
}

/* 1 for the metrics whose work is the GPU work of the steps. */
static int is_step_time(const char *zMetric){
  return strncmp(zMetric, "step_time_", 10)==0;
}

/* The signed-rank p (two-sided, normal approximation) of paired
** samples, for information. */
static double paired_p(const double *a, const double *b, int n){
  double *d, *z;
  HistMw r;
  if( n<2 ) return NAN;
  d = xmalloc(sizeof(double)*(size_t)n);
  z = xmalloc(sizeof(double)*(size_t)n);
  for(int i=0; i<n; i++){ d[i] = b[i]-a[i]; z[i] = -d[i]; }
  /* the Mann-Whitney test of d against -d is the signed-rank test of d
  ** up to the zeros' handling: enough for an informative p */
  r = history_mann_whitney(z, n, d, n);
  free(d);
  free(z);
  return r.p;
}

int history_check_metric(sqlite3 *db, int64_t idA, int64_t idB, int comparable,
                      const HistWindow *w, const GateParams *g, HistCheck *c,
                      PfError *pErr){
  double *sa = NULL, *sb = NULL, *h;
  int64_t *stA = NULL, *stB = NULL, *common = NULL;
  int *yA = NULL, *yB = NULL;
  int nh = 0, rc = -1, same;
  GateWork work;
  GateIn in;
  memset(&in, 0, sizeof(in));
  memset(&work, 0, sizeof(work));
  c->p = NAN;
  c->paired = 0;
  c->nW = 0;
  c->nWorkPairs = 0;
  c->dir = (int)db_int(db, 1, db_statement("metric-direction"),
                       c->zMetric);
  if( history_source_run(db, idA, pErr) || history_source_run(db, idB, pErr) ){
    return -1;
  }
  for(int i=0; i<w->n; i++){
    if( history_source_run(db, w->aId[i], pErr) ) return -1;
  }
  if( (c->hasA = load_value(db, idA, c->zMetric, &c->a, pErr))<0
      || (c->hasB = load_value(db, idB, c->zMetric, &c->b, pErr))<0
      || load_values2(db,
          db_statement("history-sample"), idA, c->zMetric, &sa, &stA, &yA,
                      &c->nA, pErr)
      || load_values2(db,
          db_statement("history-sample"), idB, c->zMetric, &sb, &stB, &yB,
                      &c->nB, pErr)
      || (same = idA==idB ? 1 : history_same_schedule(db, idA, idB,
                                                      pErr))<0 ){
    free(sa);
    free(stA);
    free(yA);
    return -1;
  }
  h = xmalloc(sizeof(double)*(size_t)(w->n>0 ? w->n : 1));
  for(int i=0; i<w->n; i++){
    double v;
    int k = load_value(db, w->aId[i], c->zMetric, &v, pErr);
    if( k<0 ) goto done;
    if( k ) h[nh++] = v;
  }
  if( same && c->nA>0 && c->nB>0 ){
    int n = pair_by_step(sa, stA, yA, c->nA, sb, stB, yB, c->nB, &common);
    c->paired = 1;
    c->nA = c->nB = n;
    if( n>=g->minSteps && n>0 && g->workMinPairs>0
        && is_step_time(c->zMetric) ){
      /* the pairs are the evidence when the steps have no interval */
      int wantPairs = history_sr_k(n, g->alpha)==0;
      if( gate_work_load(db, idA, idB, common, n, g->workMinPairs,
                         wantPairs, &work, pErr) ) goto done;
      c->nW = work.nW;
      c->nWorkPairs = work.nPairs;
    }
    c->p = paired_p(sa, sb, n);
  }else{
    c->nA = keep_steady(sa, yA, c->nA);
    c->nB = keep_steady(sb, yB, c->nB);
    if( c->nA>=2 && c->nB>=2 ){
      c->p = history_mann_whitney(sa, c->nA, sb, c->nB).p;
    }
  }
  in.dir = c->dir;
  in.thrPct = g->thrPct;
  in.alpha = g->alpha;
  in.alphaOk = g->alphaOk;
  in.zMax = g->zMax;
  in.minSteps = g->minSteps;
  in.minHistory = g->minHistory;
  in.comparable = comparable;
  in.hasA = c->hasA;
  in.hasB = c->hasB;
  in.a = c->a;
  in.b = c->b;
  in.sa = sa;
  in.nA = c->nA;
  in.sb = sb;
  in.nB = c->nB;
  in.hist = h;
  in.nHist = nh;
  in.paired = c->paired;
  in.sw = work.aW;
  in.nW = work.nW;
  in.nWorkPairs = work.nPairs;
  in.sp = work.aP;
  in.nP = work.nP;
  history_gate(&in, &c->o);
  rc = 0;
done:
  free(work.aW);
  free(work.aP);
  free(common);
  free(h);
  free(sa);
  free(sb);
  free(stA);
  free(stB);
  free(yA);
  free(yB);
  return rc;
}
