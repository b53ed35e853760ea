/*
** history.c — named baselines, the statistics and the decision of the
** regression gate (`profan check`), and the fingerprint comparison that
** picks the runs of its history.
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
#include "history/history_source.h"
#include "core/db.h"
#include "core/runref.h"

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

/* The interval ends of one more level, in the units of sample_shift. */
static void shift_at(const double *a, int na, const double *b, int nb,
                     double alpha, double *pLo, double *pHi){
  HistShift h = history_hl_shift(a, na, b, nb, alpha);
  *pLo = h.lo;
  *pHi = h.hi;
}

/*
** The shift of the samples as % of the baseline, with its interval at
** alpha and at alphaOk: on log ratios when every sample is positive (a
** 20 % slowdown is +20 % at any speed), else on differences relative to
** |median of a|.
*/
static void sample_shift(const GateIn *in, GateOut *o){
  HistShift h;
  double lo2, hi2, aOk = in->alphaOk>0 && in->alphaOk<in->alpha
                         ? in->alphaOk : in->alpha;
  if( all_positive(in->sa, in->nA) && all_positive(in->sb, in->nB) ){
    double *la = xmalloc(sizeof(double)*(size_t)in->nA);
    double *lb = xmalloc(sizeof(double)*(size_t)in->nB);
    for(int i=0; i<in->nA; i++) la[i] = log(in->sa[i]);
    for(int i=0; i<in->nB; i++) lb[i] = log(in->sb[i]);
    h = history_hl_shift(la, in->nA, lb, in->nB, in->alpha);
    shift_at(la, in->nA, lb, in->nB, aOk, &lo2, &hi2);
    free(la);
    free(lb);
    o->shiftPct = 100.0*expm1(h.est);
    o->loPct = 100.0*expm1(h.lo);
    o->hiPct = 100.0*expm1(h.hi);
    o->lo2Pct = 100.0*expm1(lo2);
    o->hi2Pct = 100.0*expm1(hi2);
  }else{
    double *c = sorted_copy(in->sa, in->nA), ref;
    ref = fabs(history_median(c, in->nA));
    free(c);
    if( ref==0 ) ref = 1;
    h = history_hl_shift(in->sa, in->nA, in->sb, in->nB, in->alpha);
    shift_at(in->sa, in->nA, in->sb, in->nB, aOk, &lo2, &hi2);
    o->shiftPct = 100.0*h.est/ref;
    o->loPct = 100.0*h.lo/ref;
    o->hiPct = 100.0*h.hi/ref;
    o->lo2Pct = 100.0*lo2/ref;
    o->hi2Pct = 100.0*hi2/ref;
  }
}

/* Slack for "reaches the threshold": rounding of microsecond stamps. */
#define GATE_EPS 1e-9

/*
** The step test in one bad direction d (1 or -1) on the shift and its
** two intervals of o (in %) against the threshold thr (in %); *pzWhy
** gets the reason in words (static text).  The rule is history_gate()'s.
*/
static GateVerdict step_verdict(int d, const GateOut *o, double thr,
                                const char **pzWhy){
  double bEst = d*o->shiftPct;
  double bLo = d>0 ? o->loPct : -o->hiPct, bHi = d>0 ? o->hiPct : -o->loPct;
  double bHi2 = d>0 ? o->hi2Pct : -o->lo2Pct;
  double t = thr - GATE_EPS*(1+thr);
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
  if( bHi<t ){
    *pzWhy = ": the interval stays below the threshold but the shift is"
             " nearer the threshold than no change; more steps would tell";
  }else if( bLo>0 ){
    *pzWhy = ": worse for sure, but the shift is nearer no change than"
             " the threshold; the interval reaches it";
  }else{
    *pzWhy = ": the interval reaches the threshold and includes no change;"
             " the steps can neither rule out nor confirm a regression";
  }
  return GATE_INCONCLUSIVE;
}

/* The value test in one bad direction d: only the change is known. */
static GateVerdict value_verdict(int d, double changePct, double thr){
  double c = d*changePct, t = thr - GATE_EPS*(1+thr);
  if( c>=t ) return GATE_INCONCLUSIVE;
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
                 : value_verdict(d, o->changePct, in->thrPct);
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
    sample_shift(in, o);
    o->v = both_ways(in, o, 1, &zWhy);
    snprintf(o->zReason, sizeof(o->zReason), "steady steps %+.2f%% "
             "[%+.2f%%, %+.2f%%] (%d vs %d steps)%s", o->shiftPct, o->loPct,
             o->hiPct, in->nA, in->nB, zWhy);
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

/* ------------------------------------------------- comparable history */

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

/* Shared and total top kernels / operators of two runs. */
static int shared_items(sqlite3 *db, int64_t idA, int64_t idB,
                        HistCompat *p, PfError *pErr){
  sqlite3_stmt *s = db_prepare(db,
    "SELECT kind, sum(c = 2), count(*) FROM ("
    " SELECT kind, name_id, count(DISTINCT run_id) AS c"
    " FROM run_fingerprint WHERE run_id IN (?1, ?2)"
    " GROUP BY kind, name_id) GROUP BY kind", pErr);
  int rc;
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, idA);
  sqlite3_bind_int64(s, 2, idB);
  while( (rc = sqlite3_step(s))==SQLITE_ROW ){
    const char *z = (const char*)sqlite3_column_text(s, 0);
    int both = sqlite3_column_int(s, 1), all = sqlite3_column_int(s, 2);
    if( z && strcmp(z, "kernel")==0 ){ p->kShared = both; p->kAll = all; }
    else{ p->oShared = both; p->oAll = all; }
  }
  sqlite3_finalize(s);
  if( rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "%s", sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}

/* 1 when shared of all is at least minPct % (two empty sets: 1). */
static int enough(int shared, int all, double minPct){
  return all==0 || 100.0*shared>=minPct*all;
}

/* Compare the values of tag zKey of both runs; 1 when equal or absent. */
static int same_tag(sqlite3 *db, int64_t idA, int64_t idB, const char *zKey,
                    HistCompat *p){
  sqlite3_stmt *s = NULL;
  int same = 1;
  if( sqlite3_prepare_v2(db, "SELECT (SELECT value FROM run_tag WHERE"
        " run_id=?1 AND key=?3), (SELECT value FROM run_tag WHERE run_id=?2"
        " AND key=?3)", -1, &s, NULL)!=SQLITE_OK ){
    sqlite3_finalize(s);
    return 1;
  }
  sqlite3_bind_int64(s, 1, idA);
  sqlite3_bind_int64(s, 2, idB);
  sqlite3_bind_text(s, 3, zKey, -1, SQLITE_STATIC);
  if( sqlite3_step(s)==SQLITE_ROW ){
    const char *za = (const char*)sqlite3_column_text(s, 0);
    const char *zb = (const char*)sqlite3_column_text(s, 1);
    char zk[40], z1[40], z2[40];
    same = (za==NULL && zb==NULL) || (za && zb && strcmp(za, zb)==0);
    if( !same ){
      util_sanitize(zKey, strlen(zKey), zk, sizeof(zk));
      util_sanitize(za ? za : "(none)", strlen(za ? za : "(none)"), z1,
                    sizeof(z1));
      util_sanitize(zb ? zb : "(none)", strlen(zb ? zb : "(none)"), z2,
                    sizeof(z2));
      snprintf(p->zWhy, sizeof(p->zWhy), "tag %s: %s vs %s", zk, z2, z1);
    }
  }
  sqlite3_finalize(s);
  return same;
}

int history_comparable(sqlite3 *db, int64_t idA, int64_t idB,
                    const char *const *azTag, int nTag, HistCompat *p,
                    PfError *pErr){
  double minPct = history_gate_param(db, "fingerprint_min_shared_pct", 50);
  memset(p, 0, sizeof(*p));
  /* a history server's runs are pulled when first compared */
  if( history_source_run(db, idA, pErr) || history_source_run(db, idB, pErr) ){
    return -1;
  }
  p->ranksA = (int)db_int(db, 0, "SELECT ranks FROM run_rank_count"
                          " WHERE run_id=%lld", (long long)idA);
  p->ranksB = (int)db_int(db, 0, "SELECT ranks FROM run_rank_count"
                          " WHERE run_id=%lld", (long long)idB);
  if( shared_items(db, idA, idB, p, pErr) ) return -1;
  p->ok = 0;
  if( p->ranksA!=p->ranksB ){
    snprintf(p->zWhy, sizeof(p->zWhy), "ranks %d vs %d", p->ranksB,
             p->ranksA);
  }else if( !enough(p->kShared, p->kAll, minPct) ){
    snprintf(p->zWhy, sizeof(p->zWhy), "top kernels: %d of %d shared",
             p->kShared, p->kAll);
  }else if( !enough(p->oShared, p->oAll, minPct) ){
    snprintf(p->zWhy, sizeof(p->zWhy), "top operators: %d of %d shared",
             p->oShared, p->oAll);
  }else{
    p->ok = 1;
    for(int i=0; p->ok && i<nTag; i++){
      p->ok = same_tag(db, idA, idB, azTag[i], p);
    }
  }
  return 0;
}

/* Append run id to the window's list. */
static void window_add(HistWindow *w, int64_t id, int *pAlloc){
  if( w->n==*pAlloc ){
    *pAlloc = *pAlloc ? 2**pAlloc : 16;
    w->aId = xrealloc(w->aId, sizeof(int64_t)*(size_t)*pAlloc);
  }
  w->aId[w->n++] = id;
}

/* Record a run left out (the first HIST_MAX_LEFT_OUT) and count it. */
static void window_leave_out(HistWindow *w, int64_t id, const char *zName,
                             const char *zWhy){
  w->nOutTotal++;
  if( w->nOut<HIST_MAX_LEFT_OUT ){
    HistLeftOut *o = &w->aOut[w->nOut++];
    o->id = id;
    util_sanitize(zName ? zName : "", strlen(zName ? zName : ""), o->zName,
                  sizeof(o->zName));
    snprintf(o->zWhy, sizeof(o->zWhy), "%s", zWhy);
  }
}

int history_window(sqlite3 *db, int64_t idA, int64_t idB, int nLast,
                const char *zTagKey, const char *zTagVal,
                const char *const *azSame, int nSame, HistWindow *w,
                PfError *pErr){
  sqlite3_stmt *s;
  int nAlloc = 0, rc = SQLITE_DONE;
  int64_t hi = idA, lo;
  memset(w, 0, sizeof(*w));
  s = db_prepare(db, "SELECT r.id, r.name, ?3 IS NULL OR EXISTS (SELECT 1"
                 " FROM run_tag t WHERE t.run_id=r.id AND t.key=?3"
                 " AND t.value IS ?4) FROM run r WHERE r.id<=?1 AND r.id>=?5"
                 " AND r.id<>?2 ORDER BY r.id DESC", pErr);
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 2, idB);
  db_bind_text_or_null(s, 3, zTagKey, -1);
  db_bind_text_or_null(s, 4, zTagVal, -1);
  /* page by page from a history server (its source: a page of the runs
  ** the window still needs, and the run under test); one page locally */
  while( w->n<nLast && hi>=1 ){
    if( history_source_page(db, hi, nLast-w->n+1, &lo, pErr) ){
      sqlite3_finalize(s);
      return -1;
    }
    sqlite3_bind_int64(s, 1, hi);
    sqlite3_bind_int64(s, 5, lo);
    while( w->n<nLast && (rc = sqlite3_step(s))==SQLITE_ROW ){
      int64_t id = sqlite3_column_int64(s, 0);
      const char *zName = (const char*)sqlite3_column_text(s, 1);
      HistCompat c;
      if( id==idA ){
        window_add(w, id, &nAlloc);
        continue;
      }
      if( sqlite3_column_int(s, 2)==0 ){
        char z[200];
        snprintf(z, sizeof(z), "no tag %s=%s", zTagKey, zTagVal);
        window_leave_out(w, id, zName, z);
        continue;
      }
      if( history_comparable(db, idA, id, azSame, nSame, &c, pErr) ){
        sqlite3_finalize(s);
        return -1;
      }
      if( c.ok ) window_add(w, id, &nAlloc);
      else window_leave_out(w, id, zName, c.zWhy);
    }
    sqlite3_reset(s);
    if( rc!=SQLITE_ROW && rc!=SQLITE_DONE ) break;
    hi = lo-1;
  }
  sqlite3_finalize(s);
  if( rc!=SQLITE_ROW && rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "%s", sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}

void history_window_free(HistWindow *w){
  free(w->aId);
  w->aId = NULL;
  w->n = 0;
}

/*
** Values of one query binding ?1 (int64) and ?2 (text) into a new array
** (caller frees; NULL when none); *pn gets the count.  -1 on error.
*/
static int load_values(sqlite3 *db, const char *zSql, int64_t id,
                       const char *z, double **pa, int *pn, PfError *pErr){
  sqlite3_stmt *s = db_prepare(db, zSql, pErr);
  double *a = NULL;
  int n = 0, nAlloc = 0, rc;
  *pa = NULL;
  *pn = 0;
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, id);
  sqlite3_bind_text(s, 2, z, -1, SQLITE_STATIC);
  while( (rc = sqlite3_step(s))==SQLITE_ROW ){
    if( sqlite3_column_type(s, 0)==SQLITE_NULL ) continue;
    if( n==nAlloc ){
      nAlloc = nAlloc ? 2*nAlloc : 64;
      a = xrealloc(a, sizeof(double)*(size_t)nAlloc);
    }
    a[n++] = sqlite3_column_double(s, 0);
  }
  sqlite3_finalize(s);
  if( rc!=SQLITE_DONE ){
    pf_error_set(pErr, ERRPOS_NONE, 0, "%s", sqlite3_errmsg(db));
    free(a);
    return -1;
  }
  *pa = a;
  *pn = n;
  return 0;
}

static const char zValueSql[] =
  "SELECT value FROM run_metric WHERE run_id=?1 AND metric=?2";
static const char zSampleSql[] =
  "SELECT value FROM run_step_sample WHERE run_id=?1 AND metric=?2"
  " ORDER BY step";

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

int history_check_metric(sqlite3 *db, int64_t idA, int64_t idB, int comparable,
                      const HistWindow *w, const GateParams *g, HistCheck *c,
                      PfError *pErr){
  double *sa = NULL, *sb = NULL, *h;
  int nh = 0, rc = -1;
  GateIn in;
  memset(&in, 0, sizeof(in));
  c->p = NAN;
  c->dir = (int)db_int(db, 1, "SELECT direction FROM metric_direction"
                       " WHERE %Q GLOB pattern ORDER BY priority LIMIT 1",
                       c->zMetric);
  if( history_source_run(db, idA, pErr) || history_source_run(db, idB, pErr) ){
    return -1;
  }
  for(int i=0; i<w->n; i++){
    if( history_source_run(db, w->aId[i], pErr) ) return -1;
  }
  if( (c->hasA = load_value(db, idA, c->zMetric, &c->a, pErr))<0
      || (c->hasB = load_value(db, idB, c->zMetric, &c->b, pErr))<0
      || load_values(db, zSampleSql, idA, c->zMetric, &sa, &c->nA, pErr)
      || load_values(db, zSampleSql, idB, c->zMetric, &sb, &c->nB, pErr) ){
    free(sa);
    return -1;
  }
  h = xmalloc(sizeof(double)*(size_t)(w->n>0 ? w->n : 1));
  for(int i=0; i<w->n; i++){
    double v;
    int k = load_value(db, w->aId[i], c->zMetric, &v, pErr);
    if( k<0 ) goto done;
    if( k ) h[nh++] = v;
  }
  if( c->nA>=2 && c->nB>=2 ){
    c->p = history_mann_whitney(sa, c->nA, sb, c->nB).p;
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
  history_gate(&in, &c->o);
  rc = 0;
done:
  free(h);
  free(sa);
  free(sb);
  return rc;
}
