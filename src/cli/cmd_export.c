/*
** cmd_export.c — `profan export-trace RUN [--rank R|all] [--step N |
** --window START:END | --around ANCHOR] [-o FILE]`: resolve the command
** line to the ranks and per-rank time windows of an ExportSpec, checking
** each value against the database (a bad one exits 2 naming the valid
** choices), then write the trace with export_trace.c.
**
** Pipeline position: read side (front end of export_trace.c).  The
** database is opened read-only and never changed.
*/
#include "cli/cli.h"
#include "core/db.h"
#include "report/export_trace.h"
#include "core/runref.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "3-7, 9" for a sorted list of numbers, in a new string (caller frees). */
static char *ranges_text(sqlite3 *db, const char *zSql, int64_t runId,
                         int64_t rank){
  sqlite3_stmt *s = db_prepare(db, zSql, NULL);
  Buf b;
  int64_t first = 0, last = 0;
  int any = 0;
  buf_init(&b);
  if( s ){
    sqlite3_bind_int64(s, 1, runId);
    if( sqlite3_bind_parameter_count(s)>=2 ) sqlite3_bind_int64(s, 2, rank);
    while( sqlite3_step(s)==SQLITE_ROW ){
      int64_t v = sqlite3_column_int64(s, 0);
      if( any && v==last+1 ){ last = v; continue; }
      if( any ){
        buf_printf(&b, "%s%lld", b.n ? ", " : "", (long long)first);
        if( last!=first ) buf_printf(&b, "-%lld", (long long)last);
      }
      first = last = v;
      any = 1;
    }
    sqlite3_finalize(s);
  }
  if( any ){
    buf_printf(&b, "%s%lld", b.n ? ", " : "", (long long)first);
    if( last!=first ) buf_printf(&b, "-%lld", (long long)last);
  }else{
    buf_puts(&b, "none");
  }
  return buf_steal(&b);
}

/* Exit 2 with "profan: export-trace: MSG". */
static void PF_NORETURN bad_value(sqlite3 *db, const char *zFmt, ...)
    PF_PRINTF(2, 3);
static void bad_value(sqlite3 *db, const char *zFmt, ...){
  va_list ap;
  Buf b;
  buf_init(&b);
  va_start(ap, zFmt);
  buf_vprintf(&b, zFmt, ap);
  va_end(ap);
  cli_error("export-trace: %s", buf_str(&b));
  buf_free(&b);
  db_close(db);
  exit(EXIT_USAGE);
}

/* Exit with "profan: export-trace: database: MSG" and the code of the
** error (7 for the database itself). */
static void PF_NORETURN db_failed(sqlite3 *db, const char *zMsg){
  cli_die(db, cli_sqlite_exit(db), "export-trace: database: %s", zMsg);
}

static int64_t resolve_run(sqlite3 *db, const char *zRun){
  int64_t id;
  int rc = cli_resolve_run(db, zRun, 0, &id);
  if( rc!=EXIT_OK ){
    db_close(db);
    exit(rc);
  }
  return id;
}

/* The ranks to export: every rank with trace rows, or the one asked. */
static ExportRank *resolve_ranks(sqlite3 *db, int64_t runId,
                                 const char *zRank, int *pn){
  const char *zRanks = db_statement("trace-ranks");
  sqlite3_stmt *s = db_prepare(db, zRanks, NULL);
  ExportRank *a = NULL;
  int n = 0;
  char *zEnd = NULL;
  long long want = -1;
  if( zRank && strcmp(zRank, "all")!=0 ){
    want = strtoll(zRank, &zEnd, 10);
    if( zRank[0]==0 || *zEnd || want<0 ) want = -2;
  }
  if( s==NULL ) db_failed(db, sqlite3_errmsg(db));
  sqlite3_bind_int64(s, 1, runId);
  while( sqlite3_step(s)==SQLITE_ROW ){
    int64_t r = sqlite3_column_int64(s, 0);
    if( want>=0 && r!=want ) continue;
    a = xrealloc(a, sizeof(ExportRank)*(size_t)(n+1));
    memset(&a[n], 0, sizeof(a[n]));
    a[n++].rank = r;
  }
  sqlite3_finalize(s);
  if( n==0 ){
    char *zAll = ranges_text(db, zRanks, runId, 0);
    char z[40];
    util_sanitize(zRank ? zRank : "", zRank ? strlen(zRank) : 0, z, sizeof(z));
    if( zRank==NULL || strcmp(zRank, "all")==0 ){
      bad_value(db, "run %lld has no trace rows to export", (long long)runId);
    }
    bad_value(db, "no rank '%s' in run %lld (ranks: %s, or all)", z,
              (long long)runId, zAll);
  }
  *pn = n;
  return a;
}

/* --step N: each rank's step N; ranks without it are dropped (an explicit
** rank without it is an error). */
static void window_step(sqlite3 *db, int64_t runId, const char *zStep,
                        ExportRank *a, int *pn, int explicitRank){
  char *zEnd = NULL;
  long long step = strtoll(zStep, &zEnd, 10);
  sqlite3_stmt *s;
  int n = 0;
  if( zStep[0]==0 || *zEnd ){
    char z[40];
    util_sanitize(zStep, strlen(zStep), z, sizeof(z));
    bad_value(db, "--step wants a step number, not '%s' (steps: %s)", z,
              ranges_text(db,
                  db_statement("cmd-export-run-steps"),
                  runId, 0));
  }
  s = db_prepare(db,
                 db_statement("cmd-export-step-window"), NULL);
  if( s==NULL ) db_failed(db, sqlite3_errmsg(db));
  for(int i=0; i<*pn; i++){
    sqlite3_bind_int64(s, 1, runId);
    sqlite3_bind_int64(s, 2, a[i].rank);
    sqlite3_bind_int64(s, 3, step);
    if( sqlite3_step(s)==SQLITE_ROW ){
      a[n] = a[i];
      a[n].lo = sqlite3_column_int64(s, 0);
      a[n].hi = sqlite3_column_int64(s, 1);
      if( a[n].hi<=a[n].lo ) a[n].hi = a[n].lo + 1;
      n++;
    }
    sqlite3_reset(s);
  }
  sqlite3_finalize(s);
  if( n==0 ){
    if( explicitRank ){
      bad_value(db, "no step %lld on rank %lld of run %lld (steps: %s)", step,
                (long long)a[0].rank, (long long)runId,
                ranges_text(db,
                    db_statement("cmd-export-rank-steps"),
                    runId, a[0].rank));
    }
    bad_value(db, "no step %lld in run %lld (steps: %s)", step,
              (long long)runId,
              ranges_text(db,
                  db_statement("cmd-export-run-steps"),
                  runId, 0));
  }
  *pn = n;
}

/* First start and last end of any trace row of the run (every rank: the
** origin of --window is common to all ranks). */
static void run_extent(sqlite3 *db, int64_t runId, int64_t *pLo,
                       int64_t *pHi){
  static const char *azTab[] = { "kernel", "cpu_op", "runtime_call",
                                 "gpu_mem_op", "annotation",
                                 "python_function", "gpu_sync" };
  *pLo = INT64_MAX;
  *pHi = INT64_MIN;
  for(size_t i=0; i<sizeof(azTab)/sizeof(azTab[0]); i++){
    int64_t lo, hi;
    PfError err;
    char *zSql;
    sqlite3_stmt *s;
    memset(&err, 0, sizeof(err));
    if( db_run_rowids(db, azTab[i], runId, &lo, &hi, &err) ){
      db_failed(db, err.zMsg);
    }
    if( lo>hi ) continue;
    zSql = sqlite3_mprintf(db_statement("cmd-export-run-extent"), azTab[i]);
    s = db_prepare(db, zSql, NULL);
    sqlite3_free(zSql);
    if( s==NULL ) db_failed(db, sqlite3_errmsg(db));
    sqlite3_bind_int64(s, 1, lo);
    sqlite3_bind_int64(s, 2, hi);
    sqlite3_bind_int64(s, 3, runId);
    if( sqlite3_step(s)==SQLITE_ROW
        && sqlite3_column_type(s, 0)!=SQLITE_NULL ){
      if( sqlite3_column_int64(s, 0)<*pLo ) *pLo = sqlite3_column_int64(s, 0);
      if( sqlite3_column_int64(s, 1)>*pHi ) *pHi = sqlite3_column_int64(s, 1);
    }
    sqlite3_finalize(s);
  }
}

/* One bound of --window: a number with an optional unit (ns, us, ms, s;
** default ms) -> ns.  Returns 0, or -1 when it is not one. */
static int parse_time(const char *z, size_t n, int64_t *pNs){
  char zNum[64];
  char *zEnd;
  double v, mul = 1e6;
  size_t k = 0;
  if( n==0 || n>=sizeof(zNum) ) return -1;
  memcpy(zNum, z, n);
  zNum[n] = 0;
  v = strtod(zNum, &zEnd);
  if( zEnd==zNum ) return -1;
  k = (size_t)(zEnd - zNum);
  if( strcmp(zNum+k, "")==0 || strcmp(zNum+k, "ms")==0 ) mul = 1e6;
  else if( strcmp(zNum+k, "us")==0 ) mul = 1e3;
  else if( strcmp(zNum+k, "ns")==0 ) mul = 1;
  else if( strcmp(zNum+k, "s")==0 ) mul = 1e9;
  else return -1;
  if( !(v*mul > -9e18 && v*mul < 9e18) ) return -1;
  *pNs = (int64_t)(v*mul + (v<0 ? -0.5 : 0.5));
  return 0;
}

/* --window START:END, relative to the run's first event. */
static void window_range(sqlite3 *db, int64_t runId, const char *zWin,
                         ExportRank *a, int n){
  const char *zColon = strchr(zWin, ':');
  int64_t lo, hi, a0, a1;
  char z[64];
  run_extent(db, runId, &lo, &hi);
  util_sanitize(zWin, strlen(zWin), z, sizeof(z));
  if( lo>hi ) bad_value(db, "run %lld has no trace rows", (long long)runId);
  if( zColon==NULL || parse_time(zWin, (size_t)(zColon-zWin), &a0)
      || parse_time(zColon+1, strlen(zColon+1), &a1) ){
    bad_value(db, "--window wants START:END in ms from the run's first "
              "event (units ns, us, ms, s may follow), not '%s'; the run "
              "spans 0:%.3f", z, (double)(hi-lo)/1e6);
  }
  /* compared as offsets from lo: lo + a huge offset would overflow */
  if( a1<=a0 || a0>=hi-lo || a1<=0 ){
    bad_value(db, "empty window '%s': the run spans 0:%.3f ms", z,
              (double)(hi-lo)/1e6);
  }
  if( a0<0 ) a0 = 0;
  if( a1>hi-lo+1 ) a1 = hi-lo+1;
  for(int i=0; i<n; i++){
    a[i].lo = lo + a0;
    a[i].hi = lo + a1;
  }
}

/* --around ANCHOR (view export_anchor). */
static void window_anchor(sqlite3 *db, int64_t runId, const char *zAnchor,
                          ExportRank **pa, int *pn, int explicitRank,
                          const char **pzLabel){
  sqlite3_stmt *s = db_prepare(db,
      db_statement("cmd-export-anchor-window"), NULL);
  int found = 0;
  if( s==NULL ) db_failed(db, sqlite3_errmsg(db));
  sqlite3_bind_int64(s, 1, runId);
  sqlite3_bind_text(s, 2, zAnchor, -1, SQLITE_STATIC);
  if( sqlite3_step(s)==SQLITE_ROW ){
    int64_t rank = sqlite3_column_int64(s, 0);
    int64_t lo = sqlite3_column_int64(s, 1), hi = sqlite3_column_int64(s, 2);
    int n = 0;
    found = 1;
    *pzLabel = xstrdup((const char*)sqlite3_column_text(s, 3));
    /* the anchor's rank, or the window on every rank asked for */
    for(int i=0; i<*pn; i++){
      if( !explicitRank && (*pa)[i].rank!=rank ) continue;
      (*pa)[n] = (*pa)[i];
      (*pa)[n].lo = lo;
      (*pa)[n].hi = hi>lo ? hi : lo+1;
      n++;
    }
    if( n==0 ){
      (*pa)[0].rank = rank;
      (*pa)[0].lo = lo;
      (*pa)[0].hi = hi>lo ? hi : lo+1;
      n = 1;
    }
    *pn = n;
  }
  sqlite3_finalize(s);
  if( !found ){
    Buf b;
    char z[64];
    buf_init(&b);
    s = db_prepare(db,
        db_statement("export-anchor-names"),
                   NULL);
    if( s ){
      sqlite3_bind_int64(s, 1, runId);
      while( sqlite3_step(s)==SQLITE_ROW ){
        buf_printf(&b, "%s%s", b.n ? ", " : "", sqlite3_column_text(s, 0));
      }
      sqlite3_finalize(s);
    }
    util_sanitize(zAnchor, strlen(zAnchor), z, sizeof(z));
    bad_value(db, "no anchor '%s' in run %lld (anchors: %s)", z,
              (long long)runId, b.n ? buf_str(&b) : "none");
  }
}

int export_cmd(Cli *p){
  const char *zRank = cli_option(p, "rank", NULL, 1);
  const char *zStep = cli_option(p, "step", NULL, 1);
  const char *zWin = cli_option(p, "window", NULL, 1);
  const char *zAround = cli_option(p, "around", NULL, 1);
  const char *zOut = cli_option(p, "output", "o", 1);
  const char *zLabel = NULL;
  ExportSpec spec;
  ExportStats st;
  ExportSink *pSink;
  PfError err;
  sqlite3 *db;
  int explicitRank, rc;
  cli_verify_options(p);
  if( p->argc!=2 ) cli_usage_error(p, "give one RUN (an id, a name or latest)");
  if( (zStep!=NULL) + (zWin!=NULL) + (zAround!=NULL) > 1 ){
    cli_usage_error(p, "give at most one of --step, --window, --around");
  }
  if( zOut==NULL ) zOut = "-";
  db = cli_open_db(p, DB_OPEN_READONLY);
  /* rows are read once, in order: a small page cache is enough, and keeps
  ** the memory of an export the same for any size of run */
  db_exec(db, "PRAGMA cache_size=-4096", NULL);
  memset(&spec, 0, sizeof(spec));
  memset(&err, 0, sizeof(err));
  spec.runId = resolve_run(db, p->argv[1]);
  explicitRank = zRank!=NULL && strcmp(zRank, "all")!=0;
  spec.aRank = resolve_ranks(db, spec.runId, zRank, &spec.nRank);
  if( !zStep && !zWin && !zAround ){
    /* the whole run: its extent (so that ts are small numbers relative
    ** to a base just before it) */
    int64_t lo, hi;
    run_extent(db, spec.runId, &lo, &hi);
    if( lo>hi ){
      bad_value(db, "run %lld has no trace rows", (long long)spec.runId);
    }
    for(int i=0; i<spec.nRank; i++){
      spec.aRank[i].lo = lo;
      spec.aRank[i].hi = hi + 1;
    }
  }
  if( zStep ) window_step(db, spec.runId, zStep, spec.aRank, &spec.nRank,
                          explicitRank);
  if( zWin ) window_range(db, spec.runId, zWin, spec.aRank, spec.nRank);
  if( zAround ) window_anchor(db, spec.runId, zAround, &spec.aRank,
                              &spec.nRank, explicitRank, &zLabel);
  spec.merged = spec.nRank>1;
  spec.zWhat = zLabel ? zLabel : zStep ? "step" : zWin ? "window" : "run";
  pSink = export_sink_open(zOut, &err);
  if( pSink==NULL ){
    /* an output FILE that cannot be written: a bad value */
    cli_error("export-trace: %s", err.zMsg);
    free(spec.aRank);
    free((char*)zLabel);
    db_close(db);
    return EXIT_USAGE;
  }
  rc = export_trace_write(db, &spec, pSink, &st, &err);
  if( rc==0 && st.nEvents==0 ){
    export_sink_close(pSink, 0, &err);
    bad_value(db, "nothing to export: no event of rank(s) %lld%s in the "
              "window", (long long)spec.aRank[0].rank,
              spec.nRank>1 ? ",..." : "");
  }
  if( export_sink_close(pSink, rc==0, &err) ) rc = -1;
  if( rc ){
    int e = sqlite3_errcode(db) & 0xff;
    cli_error("export-trace: %s", err.zMsg);
    /* the database failed the read, or the output its write */
    rc = e!=SQLITE_OK && e!=SQLITE_ROW && e!=SQLITE_DONE
         ? cli_sqlite_exit(db) : EXIT_USAGE;
  }else if( strcmp(zOut, "-")!=0 ){
    fprintf(stderr, "profan: wrote %s: %lld events, %lld flows, %lld "
            "derived, %d rank%s\n", zOut, (long long)st.nEvents,
            (long long)st.nFlows, (long long)st.nDerived, spec.nRank,
            spec.nRank==1 ? "" : "s");
  }
  free(spec.aRank);
  free((char*)zLabel);
  db_close(db);
  return rc;
}
