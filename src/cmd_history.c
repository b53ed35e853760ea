/*
** cmd_history.c — comparison and history commands: `profan tag`,
** `profan baseline`, `profan diff`, `profan trend`, `profan check`
** (`profan report` is cmd_report.c).
**
** Pipeline position: read side (tag and baseline write run metadata).
** The numbers come from SQL: the run_metric view (schema/008-history.sql)
** and the named queries diff-metrics, diff-categories, diff-kernels,
** diff-ops, diff-tensors and trend; this file resolves runs and
** baselines, binds parameters and, for `check`, adds the statistics of
** history.c.  `diff` and `trend` with --html FILE write the HTML page of
** report_html.c instead of printing.
*/
#include "cli.h"
#include "db.h"
#include "history.h"
#include "html.h"
#include "named_query.h"
#include "report_html.h"
#include "runref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Defaults of `profan check`. */
#define CHECK_THRESHOLD_PCT 5.0   /* relative change that may be a regression */
#define CHECK_ALPHA 0.05          /* Mann-Whitney p-value below: not noise */
#define CHECK_Z 3.0               /* robust z above: outside the history */
#define CHECK_LAST 10             /* history window, runs */
#define CHECK_MIN_HISTORY 5       /* fewer runs in the window: no z test */
#define CHECK_MAX_METRICS 64

/*
** Split "K=V" into a new key string (caller frees with free()) and a
** pointer to the value inside z.  Exits 2 when there is no '=' or no key.
*/
static char *split_kv(Cli *p, const char *zOpt, const char *z,
                      const char **pzVal){
  const char *zEq = strchr(z, '=');
  if( zEq==NULL || zEq==z ) cli_usage_error(p, "%s needs K=V, got '%s'",
                                            zOpt, z);
  *pzVal = zEq+1;
  return xstrndup(z, (size_t)(zEq-z));
}

/* Parse a non-negative integer option value or exit 2. */
static int64_t parse_count(Cli *p, const char *zOpt, const char *z){
  char *zEnd;
  long long v = strtoll(z, &zEnd, 10);
  if( *z==0 || *zEnd || v<0 ) cli_usage_error(p, "%s needs a number >= 0",
                                              zOpt);
  return v;
}

/* Parse a number option value ("5", "5%", "0.05") or exit 2. */
static double parse_number(Cli *p, const char *zOpt, const char *z){
  char *zEnd;
  double v = strtod(z, &zEnd);
  if( zEnd==z || (*zEnd && strcmp(zEnd, "%")) || !(v>=0) ){
    cli_usage_error(p, "%s needs a number >= 0, got '%s'", zOpt, z);
  }
  return v;
}

/*
** Write the finished HTML page (built into pPage, or -1 from the builder
** with pErr set) to zPath ("-": stdout), free it, and return an exit code.
*/
static int finish_html(int rcBuild, Buf *pPage, PfError *pErr,
                       const char *zPath){
  int rc = EXIT_OK;
  if( rcBuild ){
    cli_error("%s", pErr->zMsg);
    rc = EXIT_SQL;
  }else if( html_write_file(zPath, pPage, pErr) ){
    cli_error("%s", pErr->zMsg);
    rc = EXIT_BAD;
  }else if( strcmp(zPath, "-") ){
    fprintf(stderr, "profan: wrote %s (%zu bytes)\n", zPath, pPage->n);
  }
  buf_free(pPage);
  return rc;
}

/* Resolve a run reference or print the error; returns -1 on failure. */
static int64_t resolve_or_report(sqlite3 *db, const char *zRef, int isBase){
  PfError e = {0};
  int64_t id = isBase ? hist_resolve_baseline(db, zRef, &e)
                      : runref_resolve(db, zRef, &e);
  if( id<0 ) cli_error("%s", e.zMsg);
  return id;
}

/*
** Run the named query zName for run runId with nKV "key=value" overrides
** and print it in p->eFmt.  Returns an exit code (EXIT_OK, EXIT_SQL).
*/
static int print_named(sqlite3 *db, OutDoc *d, const char *zSec,
                       const char *zName, int64_t runId,
                       const char **azKey, const char **azVal, int nKV,
                       int64_t limit){
  NqList list;
  const NamedQuery *q;
  sqlite3_stmt *pStmt;
  PfError e = {0};
  int rc;
  if( nq_load_all(&list, &e) ){
    cli_error("%s", e.zMsg);
    return EXIT_SQL;
  }
  q = nq_find(&list, zName);
  if( q==NULL ){
    cli_error("no query named '%s'", zName);
    nq_list_free(&list);
    return EXIT_SQL;
  }
  pStmt = nq_prepare(db, q, runId, azKey, azVal, nKV, limit, &e);
  if( pStmt==NULL ){
    cli_error("%s", e.zMsg);
    nq_list_free(&list);
    return EXIT_SQL;
  }
  rc = output_doc_section(d, zSec, pStmt, NULL);
  if( rc!=SQLITE_DONE ) cli_error("query '%s': %s", zName,
                                  sqlite3_errmsg(db));
  sqlite3_finalize(pStmt);
  nq_list_free(&list);
  return rc==SQLITE_DONE ? EXIT_OK : EXIT_SQL;
}

/* Run a writing statement inside the caller's transaction; 0 or -1. */
static int exec_bound(sqlite3 *db, const char *zSql, int64_t id,
                      const char *z1, const char *z2){
  PfError e = {0};
  sqlite3_stmt *s = db_prepare(db, zSql, &e);
  int rc;
  if( s==NULL ){
    cli_error("%s", e.zMsg);
    return -1;
  }
  sqlite3_bind_int64(s, 1, id);
  db_bind_text_or_null(s, 2, z1, -1);
  db_bind_text_or_null(s, 3, z2, -1);
  rc = sqlite3_step(s);
  if( rc!=SQLITE_DONE ) cli_error("%s", sqlite3_errmsg(db));
  sqlite3_finalize(s);
  return rc==SQLITE_DONE ? 0 : -1;
}

/* BEGIN IMMEDIATE, or print the error and return -1. */
static int begin_write(Cli *p, sqlite3 *db){
  PfError e = {0};
  if( db_exec(db, "BEGIN IMMEDIATE", &e) ){
    cli_error("%s: %s", p->zDb, e.zMsg);
    return -1;
  }
  return 0;
}

/* COMMIT when ok, else ROLLBACK; returns EXIT_OK or EXIT_BAD. */
static int end_write(Cli *p, sqlite3 *db, int ok){
  PfError e = {0};
  if( ok && db_exec(db, "COMMIT", &e)==SQLITE_OK ) return EXIT_OK;
  if( ok ) cli_error("%s: %s", p->zDb, e.zMsg);
  db_exec(db, "ROLLBACK", NULL);
  return EXIT_BAD;
}

/*
** profan tag RUN K=V... [--rm K]...   (or --baseline NAME instead of RUN)
** Adds or replaces tags of an existing run; --rm removes a tag.
*/
int tag_cmd(Cli *p){
  const char *zBase = cli_option(p, "baseline", NULL, 1);
  const char *azRm[64];
  const char *z;
  int nRm = 0, iFirst, ok = 1, rc;
  int64_t runId;
  sqlite3 *db;
  while( (z = cli_option(p, "rm", NULL, 1))!=NULL ){
    if( nRm==64 ) cli_usage_error(p, "too many --rm options");
    azRm[nRm++] = z;
  }
  cli_verify_options(p);
  iFirst = zBase ? 1 : 2;
  if( p->argc<iFirst ) cli_usage_error(p, "give a RUN (or --baseline NAME)");
  if( p->argc==iFirst && nRm==0 ) cli_usage_error(p, "give at least one K=V");
  for(int i=iFirst; i<p->argc; i++){
    if( strchr(p->argv[i], '=')==NULL || p->argv[i][0]=='=' ){
      cli_usage_error(p, "tags are K=V, got '%s'", p->argv[i]);
    }
  }
  db = cli_open_db(p, 0);
  runId = resolve_or_report(db, zBase ? zBase : p->argv[1], zBase!=NULL);
  if( runId<0 || begin_write(p, db) ){
    db_close(db);
    return EXIT_BAD;
  }
  for(int i=0; ok && i<nRm; i++){
    ok = exec_bound(db, "DELETE FROM run_tag WHERE run_id=?1 AND key=?2",
                    runId, azRm[i], NULL)==0;
  }
  for(int i=iFirst; ok && i<p->argc; i++){
    const char *zVal;
    char *zKey = split_kv(p, "a tag", p->argv[i], &zVal);
    ok = exec_bound(db, "INSERT OR REPLACE INTO run_tag(run_id, key, value)"
                    " VALUES(?1, ?2, ?3)", runId, zKey, zVal)==0;
    free(zKey);
  }
  rc = end_write(p, db, ok);
  if( rc==EXIT_OK ){
    fprintf(stderr, "profan: run %lld: %d tag%s set, %d removed\n",
            (long long)runId, p->argc-iFirst, p->argc-iFirst==1 ? "" : "s",
            nRm);
  }
  db_close(db);
  return rc;
}

/*
** profan baseline set NAME RUN | list | rm NAME
*/
int baseline_cmd(Cli *p){
  sqlite3 *db;
  int rc;
  const char *zVerb;
  cli_verify_options(p);
  if( p->argc<2 ) cli_usage_error(p, "give set, list or rm");
  zVerb = p->argv[1];
  if( strcmp(zVerb, "list")==0 ){
    sqlite3_stmt *s;
    PfError e = {0};
    if( p->argc!=2 ) cli_usage_error(p, "baseline list takes no arguments");
    db = cli_open_db(p, DB_OPEN_READONLY);
    s = db_prepare(db,
      "SELECT b.name, b.run_id, r.name AS run_name, r.created_at, b.set_at,"
      " (SELECT group_concat(key||'='||value, ' ') FROM run_tag t"
      "  WHERE t.run_id=b.run_id) AS tags"
      " FROM baseline b LEFT JOIN run r ON r.id=b.run_id ORDER BY b.name",
      &e);
    if( s==NULL ){
      cli_error("%s", e.zMsg);
      db_close(db);
      return EXIT_SQL;
    }
    rc = output_stmt(s, p->eFmt, stdout, NULL);
    if( rc!=SQLITE_DONE ) cli_error("%s", sqlite3_errmsg(db));
    sqlite3_finalize(s);
    db_close(db);
    return rc==SQLITE_DONE ? EXIT_OK : EXIT_SQL;
  }
  if( strcmp(zVerb, "set")==0 ){
    int64_t runId;
    if( p->argc!=4 ) cli_usage_error(p, "baseline set needs NAME RUN");
    if( p->argv[2][0]==0 ) cli_usage_error(p, "empty baseline NAME");
    db = cli_open_db(p, 0);
    runId = resolve_or_report(db, p->argv[3], 0);
    if( runId<0 || begin_write(p, db) ){
      db_close(db);
      return EXIT_BAD;
    }
    rc = end_write(p, db, exec_bound(db,
      "INSERT OR REPLACE INTO baseline(name, run_id, set_at)"
      " VALUES(?2, ?1, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
      runId, p->argv[2], NULL)==0);
    if( rc==EXIT_OK ){
      fprintf(stderr, "profan: baseline '%s' is run %lld\n", p->argv[2],
              (long long)runId);
    }
    db_close(db);
    return rc;
  }
  if( strcmp(zVerb, "rm")==0 ){
    if( p->argc!=3 ) cli_usage_error(p, "baseline rm needs NAME");
    db = cli_open_db(p, 0);
    if( db_int(db, 0, "SELECT count(*) FROM baseline WHERE name=%Q",
               p->argv[2])==0 ){
      cli_error("no baseline named '%s'", p->argv[2]);
      db_close(db);
      return EXIT_BAD;
    }
    if( begin_write(p, db) ){
      db_close(db);
      return EXIT_BAD;
    }
    rc = end_write(p, db, exec_bound(db,
      "DELETE FROM baseline WHERE name=?2", 0, p->argv[2], NULL)==0);
    db_close(db);
    return rc;
  }
  cli_usage_error(p, "unknown baseline command '%s' (set, list, rm)", zVerb);
}

/*
** profan diff A B [--by metrics|category|kernel|op|memory|tensors]
**                 [--scheme S] [--floor PCT] [--limit N] [--html FILE]
** A may be given as --baseline NAME instead.  B is bound as :run and A as
** :baseline of the diff-* named queries.  Without --by: metrics,
** categories and kernels; op (diff-ops) and tensors (diff-tensors) only
** with --by.
*/
int diff_cmd(Cli *p){
  const char *zBy = cli_option(p, "by", NULL, 1);
  const char *zScheme = cli_option(p, "scheme", NULL, 1);
  const char *zFloor = cli_option(p, "floor", NULL, 1);
  const char *zLimit = cli_option(p, "limit", NULL, 1);
  const char *zBase = cli_option(p, "baseline", NULL, 1);
  const char *zHtml = cli_option(p, "html", NULL, 1);
  const char *zA, *zB, *azKey[4], *azVal[4];
  char zIdA[32], zFloorV[32];
  int64_t idA, idB, limit = -1;
  int nKV = 0, rc = EXIT_OK, all;
  sqlite3 *db;
  OutDoc doc;
  cli_verify_options(p);
  if( zBase ){
    if( p->argc!=2 ) cli_usage_error(p, "give RUN B after --baseline NAME");
    zA = zBase;
    zB = p->argv[1];
  }else{
    if( p->argc!=3 ) cli_usage_error(p, "give two runs A B");
    zA = p->argv[1];
    zB = p->argv[2];
  }
  if( zBy && strcmp(zBy, "metrics") && strcmp(zBy, "category")
      && strcmp(zBy, "kernel") && strcmp(zBy, "memory")
      && strcmp(zBy, "op") && strcmp(zBy, "tensors") ){
    cli_usage_error(p, "--by is metrics, category, kernel, op, memory or"
                    " tensors");
  }
  if( zFloor ){
    snprintf(zFloorV, sizeof(zFloorV), "%g",
             parse_number(p, "--floor", zFloor));
  }
  if( zLimit ) limit = parse_count(p, "--limit", zLimit);
  all = zBy==NULL;
  if( zHtml && (zBy || zLimit) ){
    cli_usage_error(p, "--html writes every section: no --by or --limit");
  }
  if( zHtml && zHtml[0]==0 ) cli_usage_error(p, "--html needs a FILE");
  if( all && !zHtml && p->eFmt==OUT_CSV ){
    cli_usage_error(p, "--format csv prints one table: add --by"
                    " (metrics, category, kernel, op, memory, tensors)");
  }
  db = cli_open_db(p, DB_OPEN_READONLY);
  idA = resolve_or_report(db, zA, zBase!=NULL);
  idB = idA<0 ? -1 : resolve_or_report(db, zB, 0);
  if( idB<0 ){
    db_close(db);
    return EXIT_BAD;
  }
  if( zHtml ){
    Buf page;
    PfError e = {0};
    buf_init(&page);
    rc = report_html_diff(db, idA, idB, zScheme, zFloor ? zFloorV : NULL,
                          &page, &e);
    rc = finish_html(rc, &page, &e, zHtml);
    db_close(db);
    return rc;
  }
  snprintf(zIdA, sizeof(zIdA), "%lld", (long long)idA);
  azKey[nKV] = "baseline"; azVal[nKV++] = zIdA;
  output_doc_begin(&doc, p->eFmt, stdout, all ? NULL : zBy);
  if( p->eFmt==OUT_TABLE ){
    printf("diff: run %lld -> run %lld (per step; A = %lld, B = %lld)\n",
           (long long)idA, (long long)idB, (long long)idA, (long long)idB);
    doc.bText = !all;
  }
  if( all || strcmp(zBy, "metrics")==0 || strcmp(zBy, "memory")==0 ){
    const char *azK[2] = { "baseline", "like" };
    const char *azV[2] = { zIdA, "%" };
    if( zBy && strcmp(zBy, "memory")==0 ){
      azK[1] = "memory";
      azV[1] = "1";
    }
    rc = print_named(db, &doc, zBy ? zBy : "metrics", "diff-metrics",
                     idB, azK, azV, 2, -1);
  }
  if( rc==EXIT_OK && (all || strcmp(zBy, "category")==0) ){
    int n = nKV;
    if( zScheme ){ azKey[n] = "scheme"; azVal[n++] = zScheme; }
    if( zFloor ){ azKey[n] = "floor_pct"; azVal[n++] = zFloorV; }
    rc = print_named(db, &doc, all ? "categories" : zBy,
                     "diff-categories", idB,
                     azKey, azVal, n, -1);
  }
  if( rc==EXIT_OK && (all || strcmp(zBy, "kernel")==0) ){
    int n = nKV;
    if( zFloor ){ azKey[n] = "floor_pct"; azVal[n++] = zFloorV; }
    rc = print_named(db, &doc, all ? "kernels" : zBy,
                     "diff-kernels", idB, azKey,
                     azVal, n, limit);
  }
  if( rc==EXIT_OK && zBy && strcmp(zBy, "op")==0 ){
    int n = nKV;
    if( zFloor ){ azKey[n] = "floor_pct"; azVal[n++] = zFloorV; }
    rc = print_named(db, &doc, "op", "diff-ops", idB, azKey, azVal, n,
                     limit);
  }
  if( rc==EXIT_OK && zBy && strcmp(zBy, "tensors")==0 ){
    rc = print_named(db, &doc, "tensors", "diff-tensors", idB, azKey,
                     azVal, nKV, limit);
  }
  if( rc==EXIT_OK ) output_doc_end(&doc);
  db_close(db);
  return rc;
}

/*
** profan trend METRIC [--tag K=V] [--last N] [--html FILE]
** The series of one run_metric through the `trend` named query.
*/
int trend_cmd(Cli *p){
  const char *zTag = cli_option(p, "tag", NULL, 1);
  const char *zLast = cli_option(p, "last", NULL, 1);
  const char *zHtml = cli_option(p, "html", NULL, 1);
  const char *azKey[4], *azVal[4], *zTagVal = NULL;
  char *zTagKey = NULL;
  int nKV = 0, rc;
  sqlite3 *db;
  cli_verify_options(p);
  if( p->argc!=2 ) cli_usage_error(p, "give one METRIC");
  if( zLast ) parse_count(p, "--last", zLast);
  if( zHtml && zHtml[0]==0 ) cli_usage_error(p, "--html needs a FILE");
  if( zTag ) zTagKey = split_kv(p, "--tag", zTag, &zTagVal);
  db = cli_open_db(p, DB_OPEN_READONLY);
  if( db_int(db, 0, "SELECT EXISTS (SELECT 1 FROM run_metric WHERE"
             " metric=%Q)", p->argv[1])==0 ){
    char z[80];
    util_sanitize(p->argv[1], strlen(p->argv[1]), z, sizeof(z));
    cli_error("no run has the metric '%s' ('profan query run-metrics'"
              " lists them)", z);
    free(zTagKey);
    db_close(db);
    return EXIT_BAD;
  }
  if( zHtml ){
    Buf page;
    PfError e = {0};
    buf_init(&page);
    rc = report_html_trend(db, p->argv[1], zTagKey, zTagVal, zLast, &page,
                           &e);
    rc = finish_html(rc, &page, &e, zHtml);
    free(zTagKey);
    db_close(db);
    return rc;
  }
  azKey[nKV] = "metric"; azVal[nKV++] = p->argv[1];
  if( zTagKey ){
    azKey[nKV] = "tag_key"; azVal[nKV++] = zTagKey;
    azKey[nKV] = "tag_value"; azVal[nKV++] = zTagVal;
  }
  if( zLast ){ azKey[nKV] = "last"; azVal[nKV++] = zLast; }
  {
    OutDoc doc;
    output_doc_begin(&doc, p->eFmt, stdout, "trend");
    rc = print_named(db, &doc, "trend", "trend", 0, azKey, azVal, nKV, -1);
  }
  free(zTagKey);
  db_close(db);
  return rc;
}

/*
** Load the values of one query into a new array (caller frees with
** free()); *pn (OUT) gets the count.  The query binds ?1 (int64) and ?2
** (text).  Returns NULL with *pn = 0 when there are no rows or on error.
*/
static double *load_values(sqlite3 *db, const char *zSql, int64_t id,
                           const char *z, int *pn){
  PfError e = {0};
  sqlite3_stmt *s = db_prepare(db, zSql, &e);
  double *a = NULL;
  int n = 0, nAlloc = 0;
  *pn = 0;
  if( s==NULL ) return NULL;
  sqlite3_bind_int64(s, 1, id);
  if( sqlite3_bind_parameter_count(s)>=2 ) db_bind_text_or_null(s, 2, z, -1);
  while( sqlite3_step(s)==SQLITE_ROW ){
    if( sqlite3_column_type(s, 0)==SQLITE_NULL ) continue;
    if( n==nAlloc ){
      nAlloc = nAlloc ? 2*nAlloc : 64;
      a = xrealloc(a, sizeof(double)*(size_t)nAlloc);
    }
    a[n++] = sqlite3_column_double(s, 0);
  }
  sqlite3_finalize(s);
  *pn = n;
  return a;
}

/* One metric's result in `profan check`. */
typedef struct CheckRow {
  const char *zMetric;   /* borrowed from argv or a literal */
  int hasA, hasB;        /* the metric exists in baseline / run */
  double a, b;           /* baseline and run values */
  double changePct;      /* 100 (b - a) / |a| */
  int dir;               /* metric_direction: 1, -1, 0 */
  HistMw mw;             /* per-step samples (NaN p: not available) */
  int nA, nB;            /* sample sizes */
  int nHist;             /* runs in the history window */
  double z;              /* robust z of b in the history (NaN: none) */
  const char *zVerdict;  /* regression, noise, ok, improved, missing */
} CheckRow;

/*
** Evaluate one metric of run idB against baseline idA (see check_cmd).
** zTagKey/zTagVal (may be NULL) restrict the history series.
*/
static void check_metric(sqlite3 *db, CheckRow *r, int64_t idA, int64_t idB,
                         double thr, double alpha, double zMax, int nLast,
                         const char *zTagKey, const char *zTagVal){
  int worse, better, sigMw = 1, sigHist = 1, n;
  double *v;
  v = load_values(db, "SELECT value FROM run_metric WHERE run_id=?1"
                  " AND metric=?2", idA, r->zMetric, &n);
  r->hasA = n>0;
  if( n>0 ) r->a = v[0];
  free(v);
  v = load_values(db, "SELECT value FROM run_metric WHERE run_id=?1"
                  " AND metric=?2", idB, r->zMetric, &n);
  r->hasB = n>0;
  if( n>0 ) r->b = v[0];
  free(v);
  r->mw.p = r->mw.z = r->mw.u = NAN;
  r->z = NAN;
  r->changePct = NAN;
  if( !r->hasA || !r->hasB ){
    r->zVerdict = "missing";
    return;
  }
  r->dir = (int)db_int(db, 1, "SELECT direction FROM metric_direction"
                       " WHERE %Q GLOB pattern ORDER BY priority LIMIT 1",
                       r->zMetric);
  if( r->a!=0 ) r->changePct = 100.0*(r->b-r->a)/fabs(r->a);
  else r->changePct = r->b==0 ? 0 : (r->b>0 ? INFINITY : -INFINITY);
  /* per-step samples: only the step-time metrics have them */
  if( strncmp(r->zMetric, "step_time_", 10)==0 ){
    const char *zStep = "SELECT dur FROM step WHERE run_id=?1";
    double *sa = load_values(db, zStep, idA, NULL, &r->nA);
    double *sb = load_values(db, zStep, idB, NULL, &r->nB);
    r->mw = hist_mann_whitney(sa, r->nA, sb, r->nB);
    free(sa);
    free(sb);
    if( !isnan(r->mw.p) ){
      int right = r->dir==0 || (r->dir>0 ? r->mw.z>0 : r->mw.z<0);
      sigMw = r->mw.p<alpha && right;
    }
  }
  /* history: the baseline and the runs of its series before it */
  {
    PfError e = {0};
    sqlite3_stmt *s = db_prepare(db,
      "SELECT m.value FROM run_metric m WHERE m.metric=?2"
      " AND m.run_id<=?1 AND (?3 IS NULL OR EXISTS (SELECT 1 FROM run_tag t"
      "  WHERE t.run_id=m.run_id AND t.key=?3 AND t.value IS ?4))"
      " ORDER BY m.run_id DESC LIMIT ?5", &e);
    double *h = xmalloc(sizeof(double)*(size_t)(nLast>0 ? nLast : 1));
    r->nHist = 0;
    if( s ){
      sqlite3_bind_int64(s, 1, idA);
      sqlite3_bind_text(s, 2, r->zMetric, -1, SQLITE_STATIC);
      db_bind_text_or_null(s, 3, zTagKey, -1);
      db_bind_text_or_null(s, 4, zTagVal, -1);
      sqlite3_bind_int(s, 5, nLast);
      while( sqlite3_step(s)==SQLITE_ROW && r->nHist<nLast ){
        h[r->nHist++] = sqlite3_column_double(s, 0);
      }
      sqlite3_finalize(s);
    }
    if( r->nHist>=CHECK_MIN_HISTORY ){
      r->z = hist_robust_z(r->b, h, r->nHist);
      sigHist = r->dir==0 ? fabs(r->z)>zMax
              : r->dir>0 ? r->z>zMax : r->z<-zMax;
    }else{
      r->nHist = 0;
    }
    free(h);
  }
  worse = r->dir==0 ? fabs(r->changePct)>thr
        : r->dir>0 ? r->changePct>thr : r->changePct<-thr;
  better = r->dir!=0 && (r->dir>0 ? r->changePct<-thr : r->changePct>thr);
  if( worse ) r->zVerdict = sigMw && sigHist ? "regression" : "noise";
  else r->zVerdict = better ? "improved" : "ok";
}

/* Bind a double or NULL when it is not finite. */
static void bind_num(sqlite3_stmt *s, int i, double v){
  db_bind_double_or_null(s, i, isfinite(v), v);
}

/*
** profan check --run R --baseline B [--metric M]... [--threshold 5%]
**               [--alpha A] [--z Z] [--last N] [--tag K=V]
** Exit 0: no regression; 1: at least one; 2: usage.
*/
int check_cmd(Cli *p){
  const char *zRun = cli_option(p, "run", NULL, 1);
  const char *zBase = cli_option(p, "baseline", NULL, 1);
  const char *zThr = cli_option(p, "threshold", NULL, 1);
  const char *zAlpha = cli_option(p, "alpha", NULL, 1);
  const char *zZ = cli_option(p, "z", NULL, 1);
  const char *zLast = cli_option(p, "last", NULL, 1);
  const char *zTag = cli_option(p, "tag", NULL, 1);
  const char *azMetric[CHECK_MAX_METRICS], *z, *zTagVal = NULL;
  char *zTagKey = NULL;
  double thr = CHECK_THRESHOLD_PCT, alpha = CHECK_ALPHA, zMax = CHECK_Z;
  int nLast = CHECK_LAST, nMetric = 0, nReg = 0, rc = EXIT_OK;
  int64_t idA, idB;
  CheckRow aRow[CHECK_MAX_METRICS];
  sqlite3 *db;
  sqlite3_stmt *s = NULL;
  PfError e = {0};
  FILE *pVerdict;

  while( (z = cli_option(p, "metric", "m", 1))!=NULL ){
    if( nMetric==CHECK_MAX_METRICS ) cli_usage_error(p, "too many --metric");
    azMetric[nMetric++] = z;
  }
  cli_verify_options(p);
  if( p->argc!=1 ) cli_usage_error(p, "no positional arguments expected");
  if( zBase==NULL ) cli_usage_error(p, "--baseline is required");
  if( zThr ){
    thr = parse_number(p, "--threshold", zThr);
    if( thr<1.0 && strchr(zThr, '%')==NULL ) thr *= 100.0;   /* 0.05 */
  }
  if( zAlpha ) alpha = parse_number(p, "--alpha", zAlpha);
  if( zZ ) zMax = parse_number(p, "--z", zZ);
  if( zLast ) nLast = (int)parse_count(p, "--last", zLast);
  if( zTag ) zTagKey = split_kv(p, "--tag", zTag, &zTagVal);
  if( nMetric==0 ) azMetric[nMetric++] = "step_time_median_ms";
  db = cli_open_db(p, DB_OPEN_READONLY);
  idA = resolve_or_report(db, zBase, 1);
  idB = idA<0 ? -1 : resolve_or_report(db, zRun ? zRun : "latest", 0);
  if( idB<0 ){
    free(zTagKey);
    db_close(db);
    return EXIT_BAD;
  }
  for(int i=0; i<nMetric; i++){
    if( db_int(db, 0, "SELECT EXISTS (SELECT 1 FROM run_metric WHERE"
               " metric=%Q)", azMetric[i])==0 ){
      char zM[80];
      util_sanitize(azMetric[i], strlen(azMetric[i]), zM, sizeof(zM));
      free(zTagKey);
      db_close(db);
      cli_usage_error(p, "no run has the metric '%s' ('profan query"
                      " run-metrics' lists them)", zM);
    }
  }
  memset(aRow, 0, sizeof(aRow));
  for(int i=0; i<nMetric; i++){
    aRow[i].zMetric = azMetric[i];
    check_metric(db, &aRow[i], idA, idB, thr, alpha, zMax, nLast,
                 zTagKey, zTagVal);
    if( strcmp(aRow[i].zVerdict, "regression")==0 ) nReg++;
  }
  free(zTagKey);

  /* the verdict: stdout above a table, stderr for csv and json */
  pVerdict = (p->eFmt==OUT_CSV || p->eFmt==OUT_JSON) ? stderr : stdout;
  if( nReg ){
    const CheckRow *r = NULL;
    for(int i=0; i<nMetric && r==NULL; i++){
      if( strcmp(aRow[i].zVerdict, "regression")==0 ) r = &aRow[i];
    }
    fprintf(pVerdict, "REGRESSION: run %lld vs baseline %lld: %s %+.2f%% "
            "(threshold %g%%)%s\n", (long long)idB, (long long)idA,
            r ? r->zMetric : "?", r ? r->changePct : 0.0, thr,
            nReg>1 ? " and more" : "");
  }else{
    fprintf(pVerdict, "OK: run %lld vs baseline %lld: no regression in %d "
            "metric%s (threshold %g%%)\n", (long long)idB, (long long)idA,
            nMetric, nMetric==1 ? "" : "s", thr);
  }
  if( p->eFmt==OUT_TABLE || p->eFmt==OUT_MARKDOWN ) fputc('\n', stdout);

  /* the table, through a temporary table so every --format works */
  if( db_exec(db,
        "CREATE TEMP TABLE check_result(metric TEXT, baseline_value REAL,"
        " value REAL, change_pct REAL, threshold_pct REAL, direction INT,"
        " p_value REAL, n_baseline INT, n_run INT, history_runs INT,"
        " robust_z REAL, verdict TEXT)", &e)
      || (s = db_prepare(db, "INSERT INTO check_result VALUES(?1, ?2,"
                " ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)", &e))==NULL ){
    cli_error("%s", e.zMsg);
    db_close(db);
    return EXIT_SQL;
  }
  for(int i=0; i<nMetric; i++){
    const CheckRow *r = &aRow[i];
    sqlite3_bind_text(s, 1, r->zMetric, -1, SQLITE_STATIC);
    db_bind_double_or_null(s, 2, r->hasA, r->a);
    db_bind_double_or_null(s, 3, r->hasB, r->b);
    bind_num(s, 4, r->changePct);
    sqlite3_bind_double(s, 5, thr);
    sqlite3_bind_int(s, 6, r->dir);
    bind_num(s, 7, r->mw.p);
    db_bind_int_or_null(s, 8, r->nA>0, r->nA);
    db_bind_int_or_null(s, 9, r->nB>0, r->nB);
    sqlite3_bind_int(s, 10, r->nHist);
    bind_num(s, 11, r->z);
    sqlite3_bind_text(s, 12, r->zVerdict, -1, SQLITE_STATIC);
    sqlite3_step(s);
    sqlite3_reset(s);
  }
  sqlite3_finalize(s);
  s = db_prepare(db, "SELECT metric, round(baseline_value, 4) AS"
    " baseline_value, round(value, 4) AS value, round(change_pct, 2) AS"
    " change_pct, threshold_pct, direction, p_value, n_baseline, n_run,"
    " history_runs, round(robust_z, 2) AS robust_z, verdict"
    " FROM check_result", &e);
  if( s==NULL ){
    cli_error("%s", e.zMsg);
    db_close(db);
    return EXIT_SQL;
  }
  if( output_stmt(s, p->eFmt, stdout, NULL)!=SQLITE_DONE ){
    cli_error("%s", sqlite3_errmsg(db));
    rc = EXIT_SQL;
  }
  sqlite3_finalize(s);
  db_close(db);
  if( rc==EXIT_OK && nReg ) rc = EXIT_BAD;
  return rc;
}
