/*
** history_window.c — which runs are the baseline's workload: the
** fingerprint comparison of two runs (history_comparable) and the
** history of a check (history_window), with why each run left out was.
**
** Two levels.  The checked run must be the baseline's workload: the same
** rank count and enough of the same top kernels and top CPU operators
** (view run_fingerprint), the --same-tag tags.  A history run must be the
** baseline's *configuration* too, since its spread is taken for the
** run-to-run noise: in addition the same input kinds (a snapshot-only run
** is history only for snapshots), the same top user source files of the
** memory snapshots' stacks when both runs have stacks (another model's
** snapshot is not; an archive keeps none), the steady
** median step time within fingerprint_step_ratio of the baseline's
** (num_workers 0 -> 4 moved it 159 -> 126 ms with the same kernels), a
** kernel mix sharing fingerprint_min_mix_pct of its GPU time, a peak
** allocated memory within fingerprint_peak_ratio, and, without
** --same-tag, the baseline's lineage: its name with every run of digits
** taken as one ("nightly-2026-11-0#" is "nightly-#-#-#"), or a tag (key
** and value) in common with it.
**
** Pipeline position: read side (comparison and history), used by
** cmd_history.c (`profan check`).  The thresholds are rows of gate_param.
*/
#include "history/history.h"
#include "history/history_source.h"
#include "core/db.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Shared and total top kernels / operators / snapshot source files of
** two runs. */
static int shared_items(sqlite3 *db, int64_t idA, int64_t idB,
                        HistCompat *p, PfError *pErr){
  sqlite3_stmt *s = db_prepare(db,
    db_statement("history-window-shared-items"), pErr);
  int rc;
  if( s==NULL ) return -1;
  sqlite3_bind_int64(s, 1, idA);
  sqlite3_bind_int64(s, 2, idB);
  while( (rc = sqlite3_step(s))==SQLITE_ROW ){
    const char *z = (const char*)sqlite3_column_text(s, 0);
    int both = sqlite3_column_int(s, 1), all = sqlite3_column_int(s, 2);
    if( z && strcmp(z, "kernel")==0 ){ p->kShared = both; p->kAll = all; }
    else if( z && strcmp(z, "frame")==0 ){ p->fShared = both; p->fAll = all; }
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
  if( sqlite3_prepare_v2(db,
     db_statement("history-window-same-tag"), -1, &s, NULL)!=SQLITE_OK ){
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

void history_lineage(const char *zName, char *zOut, size_t nOut){
  size_t j = 0;
  if( nOut==0 ) return;
  for(const char *z = zName ? zName : ""; *z && j+1<nOut; z++){
    if( *z>='0' && *z<='9' ){
      if( j==0 || zOut[j-1]!='#' ) zOut[j++] = '#';
    }else{
      zOut[j++] = *z;
    }
  }
  zOut[j] = 0;
}

/* The text of one query's first column (?1 = id) into z; "" when none. */
static void query_text(sqlite3 *db, const char *zSql, int64_t id, char *z,
                       size_t n){
  sqlite3_stmt *s = NULL;
  z[0] = 0;
  if( sqlite3_prepare_v2(db, zSql, -1, &s, NULL)==SQLITE_OK ){
    sqlite3_bind_int64(s, 1, id);
    if( sqlite3_step(s)==SQLITE_ROW && sqlite3_column_text(s, 0) ){
      snprintf(z, n, "%s", (const char*)sqlite3_column_text(s, 0));
    }
  }
  sqlite3_finalize(s);
}

/* A run's metric, or NaN. */
static double metric_of(sqlite3 *db, int64_t id, const char *zMetric){
  sqlite3_stmt *s = NULL;
  double v = NAN;
  if( sqlite3_prepare_v2(db,
     db_statement("history-window-metric-of"), -1, &s, NULL)==SQLITE_OK ){
    sqlite3_bind_int64(s, 1, id);
    sqlite3_bind_text(s, 2, zMetric, -1, SQLITE_STATIC);
    if( sqlite3_step(s)==SQLITE_ROW
        && sqlite3_column_type(s, 0)!=SQLITE_NULL ){
      v = sqlite3_column_double(s, 0);
    }
  }
  sqlite3_finalize(s);
  return v;
}

/* The ratio larger / smaller of two values >= 0: NaN when either is
** unknown or both are 0, +inf when only one is 0. */
static double ratio(double a, double b){
  if( !(a>=0) || !(b>=0) || (a==0 && b==0) ) return NAN;
  if( a==0 || b==0 ) return INFINITY;
  return a>b ? a/b : b/a;
}

/* 1 when run id has call stacks recorded (its snapshots' frames); a run
** archived with --summaries-only keeps none. */
static int has_stacks(sqlite3 *db, int64_t id){
  return db_int(db, 0,
                db_statement("history-window-has-stacks"), (long long)id)!=0;
}

/* The GPU time two runs' kernel mixes share, %: the sum over kernel names
** of the smaller of the two shares; NaN when neither has kernels, 0 when
** one has none. */
static double kernel_mix(sqlite3 *db, int64_t idA, int64_t idB){
  sqlite3_stmt *s = NULL;
  double v = NAN;
  if( sqlite3_prepare_v2(db,
        db_statement("history-window-kernel-mix"), -1, &s, NULL)
      ==SQLITE_OK ){
    sqlite3_bind_int64(s, 1, idA);
    sqlite3_bind_int64(s, 2, idB);
    if( sqlite3_step(s)==SQLITE_ROW ){
      int n = sqlite3_column_int(s, 0);
      v = n==0 ? NAN : n==1 ? 0 : 100.0*sqlite3_column_double(s, 1);
    }
  }
  sqlite3_finalize(s);
  return v;
}

/* 1 when run idB shares a tag (key and value) with run idA. */
static int shares_tag(sqlite3 *db, int64_t idA, int64_t idB){
  return db_int(db, 0,
                db_statement("history-window-shares-tag"), (long long)idA,
                (long long)idB)!=0;
}

/* 1 when run idB is of baseline idA's lineage; else 0 with the reason in
** p->zWhy (names only: checked before the fingerprint's queries). */
static int same_lineage(sqlite3 *db, int64_t idA, int64_t idB,
                        HistCompat *p){
  char zA[200], zB[200], lA[200], lB[200], z1[48], z2[48];
  query_text(db, "SELECT name FROM run WHERE id=?1", idA, zA, sizeof(zA));
  query_text(db, "SELECT name FROM run WHERE id=?1", idB, zB, sizeof(zB));
  history_lineage(zA, lA, sizeof(lA));
  history_lineage(zB, lB, sizeof(lB));
  if( strcmp(lA, lB)==0 || shares_tag(db, idA, idB) ) return 1;
  util_sanitize(lB, strlen(lB), z1, sizeof(z1));
  util_sanitize(lA, strlen(lA), z2, sizeof(z2));
  snprintf(p->zWhy, sizeof(p->zWhy), "another lineage: name %s vs %s and"
           " no tag in common (--same-tag KEY chooses the history by a"
           " tag)", z1, z2);
  return 0;
}

/*
** The history-only criteria (configuration) of run idB against baseline
** idA; sets p->ok 0 and p->zWhy on the first one that fails.
*/
static void history_criteria(sqlite3 *db, int64_t idA, int64_t idB,
                             HistCompat *p){
  char zA[80], zB[80];
  double r, mix;
  query_text(db, db_statement("history-window-kinds"), idA, zA, sizeof(zA));
  query_text(db, db_statement("history-window-kinds"), idB, zB, sizeof(zB));
  if( strcmp(zA, zB) ){
    p->ok = 0;
    snprintf(p->zWhy, sizeof(p->zWhy), "input kinds %s vs %s",
             zB[0] ? zB : "(none)", zA[0] ? zA : "(none)");
    return;
  }
  if( !enough(p->fShared, p->fAll,
              history_gate_param(db, "fingerprint_min_shared_pct", 50))
      && has_stacks(db, idA) && has_stacks(db, idB) ){
    p->ok = 0;
    snprintf(p->zWhy, sizeof(p->zWhy), "snapshot source files: %d of %d"
             " shared", p->fShared, p->fAll);
    return;
  }
  r = ratio(metric_of(db, idA, "step_time_median_ms"),
            metric_of(db, idB, "step_time_median_ms"));
  if( r>history_gate_param(db, "fingerprint_step_ratio", 1.15) ){
    p->ok = 0;
    snprintf(p->zWhy, sizeof(p->zWhy), "step time %.3f vs %.3f ms (x%.2f)",
             metric_of(db, idB, "step_time_median_ms"),
             metric_of(db, idA, "step_time_median_ms"), r);
    return;
  }
  mix = kernel_mix(db, idA, idB);
  if( mix<history_gate_param(db, "fingerprint_min_mix_pct", 60) ){
    p->ok = 0;
    snprintf(p->zWhy, sizeof(p->zWhy), "kernel mix: %.0f%% of the GPU time"
             " in common", mix);
    return;
  }
  r = ratio(metric_of(db, idA, "peak_allocated_bytes"),
            metric_of(db, idB, "peak_allocated_bytes"));
  if( r>history_gate_param(db, "fingerprint_peak_ratio", 1.25) ){
    p->ok = 0;
    snprintf(p->zWhy, sizeof(p->zWhy), "peak allocated memory x%.2f", r);
  }
}

int history_comparable(sqlite3 *db, int64_t idA, int64_t idB,
                    const char *const *azTag, int nTag, int forHistory,
                    HistCompat *p, PfError *pErr){
  double minPct = history_gate_param(db, "fingerprint_min_shared_pct", 50);
  memset(p, 0, sizeof(*p));
  /* a history server's runs are pulled when first compared */
  if( history_source_run(db, idA, pErr) || history_source_run(db, idB, pErr) ){
    return -1;
  }
  if( forHistory && nTag==0 && history_gate_param(db, "history_lineage", 1)
      && !same_lineage(db, idA, idB, p) ){
    return 0;
  }
  p->ranksA = (int)db_int(db, 0,
      db_statement("history-window-rank-count"),
      (long long)idA);
  p->ranksB = (int)db_int(db, 0,
      db_statement("history-window-rank-count"),
      (long long)idB);
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
    if( p->ok && forHistory ) history_criteria(db, idA, idB, p);
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
  s = db_prepare(db, db_statement("history-window-runs-before"), pErr);
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
      if( history_comparable(db, idA, id, azSame, nSame, 1, &c, pErr) ){
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
