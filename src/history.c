/*
** history.c — named baselines and the statistics of the regression gate.
**
** Pipeline position: read side (comparison and history).  The metrics
** themselves are plain SQL (view run_metric in schema/008-history.sql);
** this file only holds what SQL cannot do comfortably: rank statistics
** over per-step samples and a robust spread of a run series.
*/
#include "history.h"
#include "db.h"
#include "runref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int64_t hist_resolve_baseline(sqlite3 *db, const char *zRef, PfError *pErr){
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

double hist_median(double *a, int n){
  if( n<=0 ) return NAN;
  qsort(a, (size_t)n, sizeof(double), cmp_double);
  return n%2 ? a[n/2] : (a[n/2-1]+a[n/2])/2.0;
}

double hist_mad(double *a, int n){
  double med, mad, *d;
  if( n<=0 ) return NAN;
  med = hist_median(a, n);
  d = xmalloc(sizeof(double)*(size_t)n);
  for(int i=0; i<n; i++) d[i] = fabs(a[i]-med);
  mad = hist_median(d, n);
  free(d);
  return mad;
}

double hist_robust_z(double x, double *a, int n){
  double med, s;
  if( n<=0 ) return NAN;
  s = 1.4826*hist_mad(a, n);          /* sorts a: median is then cheap */
  med = hist_median(a, n);
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

HistMw hist_mann_whitney(const double *a, int na, const double *b, int nb){
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
