/*
** cmd_history.c — comparison and history commands: `profan tag`,
** `profan baseline`, `profan diff`, `profan trend`, `profan check`
** (`profan report` is cmd_report.c).
**
** Pipeline position: read side (tag and baseline write run metadata).
** The numbers come from SQL: the run_metric view (schema/008-history.sql)
** and the named queries diff-metrics, diff-categories, diff-kernels,
** diff-ops, diff-tensors and trend; this file resolves runs and
** baselines, binds parameters and, for `check`, parses the options and
** prints what history.c decides (the gate's logic lives there).  `diff`
** and `trend` with --html FILE write the HTML page of report_html.c
** instead of printing.
*/
#include "cli/cli.h"
#include "core/db.h"
#include "history/history.h"
#include "server/pg_source.h"
#include "report/html.h"
#include "report/named_query.h"
#include "report/report_html.h"
#include "core/runref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Limits of `profan check` (its defaults are rows of table gate_param). */
#define CHECK_MAX_METRICS 64
#define CHECK_MAX_SAME_TAG 16

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
static int finish_html(sqlite3 *db, int rcBuild, Buf *pPage, PfError *pErr,
                       const char *zPath){
  int rc = EXIT_OK;
  if( rcBuild ){
    cli_error("%s", pErr->zMsg);
    rc = cli_sqlite_exit(db);
  }else if( html_write_file(zPath, pPage, pErr) ){
    /* an output FILE that cannot be written: a bad value */
    cli_error("%s", pErr->zMsg);
    rc = EXIT_USAGE;
  }else if( strcmp(zPath, "-") ){
    fprintf(stderr, "profan: wrote %s (%zu bytes)\n", zPath, pPage->n);
  }
  buf_free(pPage);
  return rc;
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
  OutUnit *aUnit;
  if( named_query_load_all(&list, &e) ){
    cli_error("%s", e.zMsg);
    return EXIT_SQL;
  }
  q = named_query_find(&list, zName);
  if( q==NULL ){
    cli_error("no query named '%s'", zName);
    named_query_list_free(&list);
    return EXIT_SQL;
  }
  if( named_query_check(db, q, runId, azKey, azVal, nKV, &e) ){
    /* a value its type refuses, an unknown parameter: a usage error */
    cli_error("%s", e.zMsg);
    named_query_list_free(&list);
    return cli_error_exit(&e, EXIT_USAGE);
  }
  pStmt = named_query_prepare(db, q, runId, azKey, azVal, nKV, limit, &e);
  if( pStmt==NULL ){
    cli_error("%s", e.zMsg);
    named_query_list_free(&list);
    return cli_sqlite_exit(db);
  }
  d->aUnit = aUnit = named_query_units(q, &d->nUnit);
  rc = output_doc_section(d, zSec, pStmt, NULL);
  free(aUnit);
  if( rc!=SQLITE_DONE ) cli_error("query '%s': %s", zName,
                                  sqlite3_errmsg(db));
  sqlite3_finalize(pStmt);
  named_query_list_free(&list);
  return rc==SQLITE_DONE ? EXIT_OK : cli_sqlite_exit(db);
}

/* Run a writing statement inside the caller's transaction; 0 or -1. */
static int exec_bound(Cli *p, sqlite3 *db, const char *zSql, int64_t id,
                      const char *z1, const char *z2){
  PfError e = {0};
  sqlite3_stmt *s = db_prepare(db, zSql, &e);
  int rc;
  if( s==NULL ){
    cli_error("%s: %s; nothing written", p->zDb, e.zMsg);
    return -1;
  }
  sqlite3_bind_int64(s, 1, id);
  db_bind_text_or_null(s, 2, z1, -1);
  db_bind_text_or_null(s, 3, z2, -1);
  rc = sqlite3_step(s);
  if( rc!=SQLITE_DONE ){
    cli_error("%s: %s; nothing written", p->zDb,
              db_lost_reason(db) ? db_lost_reason(db) : sqlite3_errmsg(db));
  }
  sqlite3_finalize(s);
  return rc==SQLITE_DONE ? 0 : -1;
}

/* COMMIT when ok, else ROLLBACK; returns EXIT_OK or EXIT_DB.  (The
** transaction's guard, db.h, keeps anything after an error from
** committing on its own.) */
static int end_write(Cli *p, sqlite3 *db, int ok){
  if( ok ) return cli_commit(p, db);
  db_rollback(db);
  return EXIT_DB;
}

/* A writer: the database opened for writing and a write transaction
** begun (waiting for another writer, --timeout), or exits 7. */
static sqlite3 *open_write(Cli *p){
  sqlite3 *db = cli_open_write(p, 0);
  int rc = cli_begin_write(p, db, NULL);
  if( rc!=EXIT_OK ){
    db_close(db);
    exit(rc);
  }
  return db;
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
  cli_timeout_option(p);
  cli_verify_options(p);
  iFirst = zBase ? 1 : 2;
  if( p->argc<iFirst ) cli_usage_error(p, "give a RUN (or --baseline NAME)");
  if( p->argc==iFirst && nRm==0 ) cli_usage_error(p, "give at least one K=V");
  for(int i=iFirst; i<p->argc; i++){
    if( strchr(p->argv[i], '=')==NULL || p->argv[i][0]=='=' ){
      cli_usage_error(p, "tags are K=V, got '%s'", p->argv[i]);
    }
  }
  db = open_write(p);
  rc = cli_resolve_run(db, zBase ? zBase : p->argv[1],
                       zBase ? CLI_RUN_BASELINE : 0, &runId);
  if( rc!=EXIT_OK ){
    db_rollback(db);
    db_close(db);
    return rc;
  }
  for(int i=0; ok && i<nRm; i++){
    ok = exec_bound(p, db, "DELETE FROM run_tag WHERE run_id=?1 AND key=?2",
                    runId, azRm[i], NULL)==0;
  }
  for(int i=iFirst; ok && i<p->argc; i++){
    const char *zVal;
    char *zKey = split_kv(p, "a tag", p->argv[i], &zVal);
    ok = exec_bound(p, db,
                    db_statement("cmd-history-tag"), runId, zKey, zVal)==0;
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
  cli_timeout_option(p);
  cli_verify_options(p);
  if( p->argc<2 ) cli_usage_error(p, "give set, list or rm");
  zVerb = p->argv[1];
  if( strcmp(zVerb, "list")==0 ){
    sqlite3_stmt *s;
    PfError e = {0};
    if( p->argc!=2 ) cli_usage_error(p, "baseline list takes no arguments");
    db = cli_open_db(p, DB_OPEN_READONLY);
    s = db_prepare(db,
      db_statement("cmd-history-select-run-tag"),
      &e);
    if( s==NULL ){
      cli_error("%s", e.zMsg);
      rc = cli_sqlite_exit(db);
      db_close(db);
      return rc;
    }
    rc = output_stmt(s, p->eFmt, stdout, NULL);
    if( rc!=SQLITE_DONE ) cli_error("%s", sqlite3_errmsg(db));
    sqlite3_finalize(s);
    rc = rc==SQLITE_DONE ? EXIT_OK : cli_sqlite_exit(db);
    db_close(db);
    return rc;
  }
  if( strcmp(zVerb, "set")==0 ){
    int64_t runId;
    if( p->argc!=4 ) cli_usage_error(p, "baseline set needs NAME RUN");
    cli_check_name(p, "baseline NAME", p->argv[2]);
    db = open_write(p);
    if( (rc = cli_resolve_run(db, p->argv[3], 0, &runId))!=EXIT_OK ){
      db_rollback(db);
      db_close(db);
      return rc;
    }
    rc = end_write(p, db, exec_bound(p, db,
      db_statement("cmd-history-insert-baseline"),
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
    db = open_write(p);
    if( db_int(db, 0, "SELECT count(*) FROM baseline WHERE name=%Q",
               p->argv[2])==0 ){
      Buf b;
      char z[64];
      buf_init(&b);
      cli_did_you_mean_sql(&b, db, p->argv[2], "SELECT name FROM baseline",
                           "'profan baseline list' lists them");
      util_sanitize(p->argv[2], strlen(p->argv[2]), z, sizeof(z));
      cli_error("no baseline named '%s'%s", z, buf_str(&b));
      buf_free(&b);
      db_rollback(db);
      db_close(db);
      return EXIT_USAGE;
    }
    rc = end_write(p, db, exec_bound(p, db,
      "DELETE FROM baseline WHERE name=?2", 0, p->argv[2], NULL)==0);
    if( rc==EXIT_OK ){
      fprintf(stderr, "profan: baseline '%s' removed\n", p->argv[2]);
    }
    db_close(db);
    return rc;
  }
  {
    static const char *const azVerb[] = { "set", "list", "rm" };
    Buf b;
    buf_init(&b);
    cli_did_you_mean(&b, zVerb, azVerb, 3);
    cli_usage_error(p, "unknown baseline command '%s'%s (set, list, rm)",
                    zVerb, buf_str(&b));
  }
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
  const char *zHist = cli_option(p, "history", NULL, 1);
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
  cli_choice(p, "--by", zBy);
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
  db = zHist ? cli_open_history(p, zHist, PG_OPEN_LAZY)
             : cli_open_db(p, DB_OPEN_READONLY);
  rc = cli_history_ref(db, zA);
  if( rc==EXIT_OK ) rc = cli_history_ref(db, zB);
  if( rc==EXIT_OK ){
    rc = cli_resolve_run(db, zA, zBase ? CLI_RUN_BASELINE : 0, &idA);
  }
  if( rc==EXIT_OK ) rc = cli_resolve_run(db, zB, 0, &idB);
  /* from a server, the rows of the two runs (a diff reads no other) */
  if( rc==EXIT_OK ) rc = cli_history_run(db, idA);
  if( rc==EXIT_OK ) rc = cli_history_run(db, idB);
  if( rc!=EXIT_OK ){
    db_close(db);
    return rc;
  }
  if( zHtml ){
    Buf page;
    PfError e = {0};
    buf_init(&page);
    rc = report_html_diff(db, idA, idB, zScheme, zFloor ? zFloorV : NULL,
                          &page, &e);
    rc = finish_html(db, rc, &page, &e, zHtml);
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

/* 1 after saying so when no run has metric zMetric (with the nearest
** metric), else 0. */
static int no_metric(sqlite3 *db, const char *zMetric){
  char z[80];
  Buf b;
  if( db_int(db, 0,
     db_statement("cmd-history-metric-exists"), zMetric) ){
    return 0;
  }
  buf_init(&b);
  cli_did_you_mean_sql(&b, db, zMetric,
      db_statement("cmd-history-metric-names"),
      "'profan query run-metrics' lists"
                       " them");
  util_sanitize(zMetric, strlen(zMetric), z, sizeof(z));
  cli_error("no run has the metric '%s'%s", z, buf_str(&b));
  buf_free(&b);
  return 1;
}

/*
** profan trend METRIC [--tag K=V] [--last N] [--html FILE]
** The series of one run_metric through the `trend` named query.
*/
int trend_cmd(Cli *p){
  const char *zTag = cli_option(p, "tag", NULL, 1);
  const char *zLast = cli_option(p, "last", NULL, 1);
  const char *zHtml = cli_option(p, "html", NULL, 1);
  const char *zHist = cli_option(p, "history", NULL, 1);
  const char *azKey[4], *azVal[4], *zTagVal = NULL;
  char *zTagKey = NULL;
  int nKV = 0, rc;
  sqlite3 *db;
  cli_verify_options(p);
  if( p->argc!=2 ) cli_usage_error(p, "give one METRIC");
  if( zLast ) parse_count(p, "--last", zLast);
  if( zHtml && zHtml[0]==0 ) cli_usage_error(p, "--html needs a FILE");
  if( zTag ) zTagKey = split_kv(p, "--tag", zTag, &zTagVal);
  db = zHist ? cli_open_history(p, zHist, 0)
             : cli_open_db(p, DB_OPEN_READONLY);
  rc = cli_history_metric(db, p->argv[1]);
  if( rc!=EXIT_OK ){
    free(zTagKey);
    db_close(db);
    return rc;
  }
  if( no_metric(db, p->argv[1]) ){
    free(zTagKey);
    db_close(db);
    return EXIT_USAGE;
  }
  if( zHtml ){
    Buf page;
    PfError e = {0};
    buf_init(&page);
    rc = report_html_trend(db, p->argv[1], zTagKey, zTagVal, zLast, &page,
                           &e);
    rc = finish_html(db, rc, &page, &e, zHtml);
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

/* Bind a double or NULL when it is not finite. */
static void bind_num(sqlite3_stmt *s, int i, double v){
  db_bind_double_or_null(s, i, isfinite(v), v);
}

/* Options of `profan check` as given (NULL: the gate_param default). */
typedef struct CheckOpts {
  const char *zRun, *zBase, *zThr, *zAlpha, *zZ, *zLast, *zTag, *zHist;
  const char *azMetric[CHECK_MAX_METRICS];
  const char *azSame[CHECK_MAX_SAME_TAG];
  int nMetric, nSame, allowMissing;
} CheckOpts;

/* Parse the options of `profan check` or exit 2. */
static void check_parse(Cli *p, CheckOpts *o){
  const char *z;
  memset(o, 0, sizeof(*o));
  o->zRun = cli_option(p, "run", NULL, 1);
  o->zBase = cli_option(p, "baseline", NULL, 1);
  o->zThr = cli_option(p, "threshold", NULL, 1);
  o->zAlpha = cli_option(p, "alpha", NULL, 1);
  o->zZ = cli_option(p, "z", NULL, 1);
  o->zLast = cli_option(p, "last", NULL, 1);
  o->zTag = cli_option(p, "tag", NULL, 1);
  o->zHist = cli_option(p, "history", NULL, 1);
  o->allowMissing = cli_option(p, "allow-missing", NULL, 0)!=NULL;
  while( (z = cli_option(p, "metric", "m", 1))!=NULL ){
    if( o->nMetric==CHECK_MAX_METRICS ) cli_usage_error(p, "too many --metric");
    o->azMetric[o->nMetric++] = z;
  }
  while( (z = cli_option(p, "same-tag", NULL, 1))!=NULL ){
    if( o->nSame==CHECK_MAX_SAME_TAG ){
      cli_usage_error(p, "too many --same-tag");
    }
    if( z[0]==0 ) cli_usage_error(p, "--same-tag needs a KEY");
    o->azSame[o->nSame++] = z;
  }
  cli_verify_options(p);
  if( p->argc!=1 ) cli_usage_error(p, "no positional arguments expected");
  if( o->zBase==NULL ) cli_usage_error(p, "--baseline is required");
  if( o->nMetric==0 ) o->azMetric[o->nMetric++] = "step_time_median_ms";
}

/* The settings: gate_param defaults, then the options (exit 2 if bad). */
static void check_params(Cli *p, sqlite3 *db, const CheckOpts *o,
                         GateParams *g, int *pnLast){
  g->thrPct = history_gate_param(db, "threshold_pct", 5);
  g->alpha = history_gate_param(db, "alpha", 0.05);
  g->alphaOk = history_gate_param(db, "alpha_ok", 0.001);
  g->zMax = history_gate_param(db, "z", 3);
  g->minSteps = (int)history_gate_param(db, "min_steps", 3);
  g->minHistory = (int)history_gate_param(db, "min_history", 5);
  *pnLast = (int)history_gate_param(db, "last", 10);
  g->workMinPairs = (int)history_gate_param(db, "work_min_pairs", 20);
  if( o->zThr ){
    g->thrPct = parse_number(p, "--threshold", o->zThr);
    if( g->thrPct<1.0 && strchr(o->zThr, '%')==NULL ) g->thrPct *= 100.0;
  }
  if( o->zAlpha ){
    g->alpha = parse_number(p, "--alpha", o->zAlpha);
    if( !(g->alpha>0 && g->alpha<0.5) ){
      cli_usage_error(p, "--alpha needs a number between 0 and 0.5, got"
                      " '%s'", o->zAlpha);
    }
  }
  if( o->zZ ){
    g->zMax = parse_number(p, "--z", o->zZ);
    if( !(g->zMax>0) ) cli_usage_error(p, "--z needs a number > 0, got '%s'",
                                       o->zZ);
  }
  if( o->zLast ) *pnLast = (int)parse_count(p, "--last", o->zLast);
}

/* Resolve --baseline and --run, and check the metrics, or exit with the
** code (2 for an unknown one) after one line naming it (bResolved: the
** runs are resolved already, only the metrics). */
static void check_resolve(Cli *p, sqlite3 *db, const CheckOpts *o,
                          int64_t *pidA, int64_t *pidB, int bResolved){
  int rc = bResolved ? EXIT_OK
                     : cli_resolve_run(db, o->zBase, CLI_RUN_BASELINE, pidA);
  if( rc==EXIT_OK && !bResolved ){
    rc = cli_resolve_run(db, o->zRun ? o->zRun : "latest", 0, pidB);
  }
  for(int i=0; rc==EXIT_OK && i<o->nMetric; i++){
    if( no_metric(db, o->azMetric[i]) ) rc = EXIT_USAGE;
  }
  (void)p;
  if( rc!=EXIT_OK ){
    db_close(db);
    exit(rc);
  }
}

/* check_resolve() with the history on a server (--history): the baseline
** from the server, the run from the local database when there is one
** (as the server would hold it once pushed), their rows pulled; a metric
** neither has is looked for in every run, as in a local history. */
static void check_resolve_history(Cli *p, sqlite3 *db, const CheckOpts *o,
                                  int64_t *pidA, int64_t *pidB){
  const char *zRun = o->zRun ? o->zRun : "latest";
  int rc = cli_history_ref(db, o->zBase);
  if( rc==EXIT_OK ){
    rc = cli_resolve_run(db, o->zBase, CLI_RUN_BASELINE, pidA);
  }
  if( rc==EXIT_OK ){
    rc = cli_history_local_run(p, zRun, pidB);
    if( rc<0 ){
      rc = cli_history_ref(db, zRun);
      if( rc==EXIT_OK ) rc = cli_resolve_run(db, zRun, 0, pidB);
    }
  }
  if( rc==EXIT_OK ) rc = cli_history_run(db, *pidA);
  if( rc==EXIT_OK ) rc = cli_history_run(db, *pidB);
  for(int i=0; rc==EXIT_OK && i<o->nMetric; i++){
    if( !db_int(db, 0,
       db_statement("cmd-history-metric-exists"), o->azMetric[i]) ){
      rc = cli_history_all();
      break;
    }
  }
  if( rc!=EXIT_OK ){
    db_close(db);
    exit(rc);
  }
  check_resolve(p, db, o, pidA, pidB, 1);
}

/* The first check with verdict v, or NULL. */
static const HistCheck *first_with(const HistCheck *a, int n, GateVerdict v){
  for(int i=0; i<n; i++) if( a[i].o.v==v ) return &a[i];
  return NULL;
}

/*
** The notes on how the runs' steps were measured, one line each, to f:
** step times from the GPU side (the CPU runs ahead: step.bound_by 'gpu'
** where the step time differs from the CPU step by more than 1 %), and
** steps found from GPU idle gaps (no ProfilerStep annotations).
*/
static void check_notes(FILE *f, sqlite3 *db, int64_t idA, int64_t idB){
  static const char *azWhat[2] = { "run", "baseline" };
  sqlite3_stmt *s = NULL;
  Buf gpu, gap;
  int nGpu = 0, nGap = 0;
  buf_init(&gpu);
  buf_init(&gap);
  if( sqlite3_prepare_v2(db,
        db_statement("cmd-history-check-notes"), -1, &s, NULL)
      !=SQLITE_OK ){
    sqlite3_finalize(s);
    return;
  }
  for(int i=0; i<2; i++){
    int64_t id = i==0 ? idB : idA;
    if( i==1 && idA==idB ) break;
    sqlite3_bind_int64(s, 1, id);
    if( sqlite3_step(s)==SQLITE_ROW ){
      int n = sqlite3_column_int(s, 0), all = sqlite3_column_int(s, 1);
      if( n>0 ){
        buf_printf(&gpu, "%s%s %lld (%d of %d steps, up to %+.0f%% on the"
                   " CPU step)", nGpu ? " and " : "", azWhat[i],
                   (long long)id, n, all, sqlite3_column_double(s, 2));
        nGpu++;
      }
      if( sqlite3_column_int(s, 3)>0 ){
        buf_printf(&gap, "%s%s %lld", nGap ? " and " : "", azWhat[i],
                   (long long)id);
        nGap++;
      }
    }
    sqlite3_reset(s);
  }
  sqlite3_finalize(s);
  if( nGpu ){
    fprintf(f, "step time: the GPU side in %s: the GPU work a step"
            " launched ends after the next step began (the CPU runs"
            " ahead); 'profan query steps' shows dur_ms and cpu_ms\n",
            gpu.z);
  }
  if( nGap ){
    fprintf(f, "steps: found from GPU idle gaps in %s (no ProfilerStep"
            " annotations): a step is a burst of GPU work between idle"
            " gaps, not a training step\n", gap.z);
  }
  buf_free(&gpu);
  buf_free(&gap);
}

/*
** Print the one-line verdict, the notes and the history to f; returns
** the exit code: 1 regression, else 4 missing / not comparable (0 with
** --allow-missing), else 5 inconclusive, else 0.
*/
static int check_print_verdict(FILE *f, sqlite3 *db, const CheckOpts *o,
                               int64_t idA, int64_t idB, const GateParams *g,
                               const HistCheck *a, int n,
                               const HistWindow *w){
  const HistCheck *r;
  int rc = GATE_EXIT_PASS;
  char zPre[64];
  snprintf(zPre, sizeof(zPre), "run %lld vs baseline %lld", (long long)idB,
           (long long)idA);
  if( (r = first_with(a, n, GATE_REGRESSION))!=NULL ){
    int nReg = 0;
    for(int i=0; i<n; i++) nReg += a[i].o.v==GATE_REGRESSION;
    fprintf(f, "REGRESSION: %s: %s %+.2f%% (threshold %g%%)%s\n", zPre,
            r->zMetric, r->o.changePct, g->thrPct,
            nReg>1 ? " and more" : "");
    rc = GATE_EXIT_REGRESSION;
  }else if( (r = first_with(a, n, GATE_NOT_COMPARABLE))!=NULL
            || (r = first_with(a, n, GATE_MISSING))!=NULL ){
    fprintf(f, "%s: %s: %s: %s%s\n", r->o.v==GATE_MISSING ? "MISSING"
            : "NOT COMPARABLE", zPre, r->zMetric, r->o.zReason,
            o->allowMissing ? " (allowed by --allow-missing)"
            : "; nothing to check");
    rc = o->allowMissing ? GATE_EXIT_PASS : GATE_EXIT_MISSING;
  }
  if( rc==GATE_EXIT_PASS
      && (r = first_with(a, n, GATE_INCONCLUSIVE))!=NULL ){
    fprintf(f, "INCONCLUSIVE: %s: %s: %s\n", zPre, r->zMetric,
            r->o.zReason);
    rc = GATE_EXIT_INCONCLUSIVE;
  }else if( rc==GATE_EXIT_PASS && !o->allowMissing ){
    fprintf(f, "OK: %s: no regression in %d metric%s (threshold %g%%)\n",
            zPre, n, n==1 ? "" : "s", g->thrPct);
  }
  check_notes(f, db, idA, idB);
  fprintf(f, "history: %d comparable run%s", w->n, w->n==1 ? "" : "s");
  for(int i=0; i<w->n; i++){
    fprintf(f, "%s%lld", i ? ", " : " (", (long long)w->aId[i]);
  }
  fprintf(f, "%s; the noise test needs %d\n", w->n ? ")" : "",
          g->minHistory);
  for(int i=0; i<w->nOut; i++){
    fprintf(f, "left out: run %lld %s: %s\n", (long long)w->aOut[i].id,
            w->aOut[i].zName, w->aOut[i].zWhy);
  }
  if( w->nOutTotal>w->nOut ){
    fprintf(f, "left out: %d more runs\n", w->nOutTotal-w->nOut);
  }
  return rc;
}

/* The units of the table of checks: the values are in their metric's,
** the counts, the direction and the z-score are plain numbers (the
** *_pct columns are percentages by their names). */
static const OutUnit aCheckUnit[] = {
  { "baseline_value", "metric" }, { "value", "metric" },
  { "direction", "none" }, { "p_value", "none" }, { "n_baseline", "none" },
  { "n_run", "none" }, { "history_runs", "none" }, { "robust_z", "none" },
};

/* The table of the checks, through a temporary table (every --format). */
static int check_print_table(Cli *p, sqlite3 *db, const GateParams *g,
                             const HistCheck *a, int n){
  PfError e = {0};
  sqlite3_stmt *s = NULL;
  int rc = EXIT_OK;
  if( db_exec(db,
        db_statement("cmd-history-create-check-result"), &e)
      || (s = db_prepare(db,
          db_statement("cmd-history-insert-check-result"), &e))==NULL ){
    cli_error("%s", e.zMsg);
    return cli_sqlite_exit(db);
  }
  for(int i=0; i<n; i++){
    const HistCheck *r = &a[i];
    sqlite3_bind_text(s, 1, r->zMetric, -1, SQLITE_STATIC);
    db_bind_double_or_null(s, 2, r->hasA, r->a);
    db_bind_double_or_null(s, 3, r->hasB, r->b);
    bind_num(s, 4, r->o.changePct);
    bind_num(s, 5, r->o.shiftPct);
    bind_num(s, 6, r->o.loPct);
    bind_num(s, 7, r->o.hiPct);
    sqlite3_bind_double(s, 8, g->thrPct);
    sqlite3_bind_int(s, 9, r->dir);
    bind_num(s, 10, r->p);
    sqlite3_bind_int(s, 11, r->nA);
    sqlite3_bind_int(s, 12, r->nB);
    sqlite3_bind_int(s, 13, r->paired);
    bind_num(s, 14, r->o.wPct);
    bind_num(s, 15, r->o.wLoPct);
    bind_num(s, 16, r->o.wHiPct);
    sqlite3_bind_int64(s, 17, isnan(r->o.wPct) ? 0 : r->nWorkPairs);
    sqlite3_bind_int(s, 18, r->o.usedHist);
    bind_num(s, 19, r->o.z);
    sqlite3_bind_text(s, 20, history_verdict_name(r->o.v), -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 21, r->o.zReason, -1, SQLITE_STATIC);
    sqlite3_step(s);
    sqlite3_reset(s);
  }
  sqlite3_finalize(s);
  s = db_prepare(db, db_statement("cmd-history-select-check-result"),
    &e);
  if( s==NULL ){
    cli_error("%s", e.zMsg);
    return cli_sqlite_exit(db);
  }
  if( output_stmt_units(s, p->eFmt, stdout, NULL, aCheckUnit,
                        (int)(sizeof(aCheckUnit)/sizeof(aCheckUnit[0])))
      !=SQLITE_DONE ){
    cli_error("%s", sqlite3_errmsg(db));
    rc = cli_sqlite_exit(db);
  }
  sqlite3_finalize(s);
  return rc;
}

/*
** Report a failed statement of `check` and return its exit code: 7 when
** the database is at fault (SQLite said corrupt, not a database, I/O,
** locked, or the error was another and PRAGMA quick_check finds the file
** damaged: a damaged schema reads as "no such column"), else 3.
*/
static int check_failure(Cli *p, sqlite3 *db, const PfError *pErr){
  sqlite3_stmt *s = NULL;
  char zWhy[200] = "";
  if( cli_sqlite_exit(db)==EXIT_DB ){
    cli_error("%s: %s", p->zDb, pErr->zMsg);
    return EXIT_DB;
  }
  if( sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &s, NULL)
      !=SQLITE_OK ){
    snprintf(zWhy, sizeof(zWhy), "%s", sqlite3_errmsg(db));
  }else if( sqlite3_step(s)!=SQLITE_ROW ){
    snprintf(zWhy, sizeof(zWhy), "%s", sqlite3_errmsg(db));
  }else if( sqlite3_column_text(s, 0)
            && strcmp((const char*)sqlite3_column_text(s, 0), "ok") ){
    util_sanitize((const char*)sqlite3_column_text(s, 0),
                  strlen((const char*)sqlite3_column_text(s, 0)), zWhy,
                  sizeof(zWhy));
  }
  sqlite3_finalize(s);
  if( zWhy[0] ){
    cli_error("%s: the database is damaged (%s): %s", p->zDb, zWhy,
              pErr->zMsg);
    return EXIT_DB;
  }
  cli_error("%s", pErr->zMsg);
  return EXIT_SQL;
}

/*
** profan check --baseline B [--run R] [--metric M]... [--threshold 5%]
**               [--alpha A] [--z Z] [--last N] [--tag K=V]
**               [--same-tag KEY]... [--allow-missing]
** Exit 0 pass, 1 regression, 2 usage or bad reference, 3 SQL error,
** 4 missing or not comparable (0 with --allow-missing), 5 inconclusive,
** 7 database error (the contract's codes, cli.h).
*/
int check_cmd(Cli *p){
  CheckOpts o;
  GateParams g;
  HistWindow w;
  HistCompat compat;
  HistCheck aChk[CHECK_MAX_METRICS];
  const char *zTagVal = NULL;
  char *zTagKey = NULL;
  int nLast, rc = EXIT_OK;
  int64_t idA, idB;
  sqlite3 *db;
  PfError e = {0};
  FILE *pVerdict;

  check_parse(p, &o);
  if( o.zTag ) zTagKey = split_kv(p, "--tag", o.zTag, &zTagVal);
  db = o.zHist ? cli_open_history(p, o.zHist, PG_OPEN_LAZY)
               : cli_open_db(p, DB_OPEN_READONLY);
  check_params(p, db, &o, &g, &nLast);
  if( o.zHist ) check_resolve_history(p, db, &o, &idA, &idB);
  else check_resolve(p, db, &o, &idA, &idB, 0);
  memset(aChk, 0, sizeof(aChk));
  memset(&w, 0, sizeof(w));
  if( history_comparable(db, idA, idB, o.azSame, o.nSame, 0, &compat, &e)
      || history_window(db, idA, idB, nLast, zTagKey, zTagVal, o.azSame,
                     o.nSame, &w, &e) ){
    rc = cli_sqlite_exit(db);
  }
  if( idA==idB ) compat.ok = 1;
  for(int i=0; rc==EXIT_OK && i<o.nMetric; i++){
    aChk[i].zMetric = o.azMetric[i];
    if( history_check_metric(db, idA, idB, compat.ok, &w, &g, &aChk[i], &e) ){
      rc = cli_sqlite_exit(db);
    }else if( !compat.ok ){
      snprintf(aChk[i].o.zReason, sizeof(aChk[i].o.zReason),
               "not the baseline's workload: %s", compat.zWhy);
    }
  }
  free(zTagKey);
  if( rc!=EXIT_OK ){
    rc = check_failure(p, db, &e);
    history_window_free(&w);
    db_close(db);
    return rc;
  }
  /* the verdict: stdout above a table, stderr for csv and json */
  pVerdict = (p->eFmt==OUT_CSV || p->eFmt==OUT_JSON) ? stderr : stdout;
  rc = check_print_verdict(pVerdict, db, &o, idA, idB, &g, aChk, o.nMetric,
                           &w);
  history_window_free(&w);
  if( p->eFmt==OUT_TABLE || p->eFmt==OUT_MARKDOWN ) fputc('\n', stdout);
  {
    int rcTab = check_print_table(p, db, &g, aChk, o.nMetric);
    if( rcTab!=EXIT_OK ) rc = rcTab;
  }
  db_close(db);
  return rc;
}
