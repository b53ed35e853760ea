/*
** cmd_report.c — `profan report RUN`: a summary of one run and the
** findings of the rules (rules/NAME.sql and $PROFAN_RULES), ranked by
** severity.
**
** Pipeline position: read side.  The summary is the named query
** report-summary; the findings are rows of the rules, collected by
** rules_run() into temp.finding and printed from there, so every --format
** works: table and markdown print both sections, JSON one object with
** both, CSV the one --section names.  Exit 0 whatever the findings
** (report is advice, not a gate).
** With --html FILE the same findings go into the HTML page of
** report_html.c instead.
*/
#include "cli/cli.h"
#include "core/db.h"
#include "history/history.h"
#include "report/html.h"
#include "report/named_query.h"
#include "report/report_html.h"
#include "report/rules.h"
#include "core/runref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPORT_MAX_PARAMS 32

/* Print the report-summary named query for runId as section "summary"
** of d; EXIT_OK or EXIT_SQL. */
static int print_summary(sqlite3 *db, OutDoc *d, int64_t runId){
  NqList list;
  const NamedQuery *q;
  sqlite3_stmt *s = NULL;
  PfError e = {0};
  int rc = EXIT_SQL;
  if( !output_doc_wants(d, "summary") ) return EXIT_OK;
  if( named_query_load_all(&list, &e) ){
    cli_error("%s", e.zMsg);
    return EXIT_SQL;
  }
  q = named_query_find(&list, "report-summary");
  if( q==NULL ) cli_error("no query named 'report-summary'");
  else s = named_query_prepare(db, q, runId, NULL, NULL, 0, -1, &e);
  if( q && s==NULL ){
    cli_error("%s", e.zMsg);
    rc = cli_sqlite_exit(db);
  }
  if( s ){
    OutUnit *aUnit;
    d->aUnit = aUnit = named_query_units(q, &d->nUnit);
    if( output_doc_section(d, "summary", s, NULL)==SQLITE_DONE ) rc = EXIT_OK;
    else{
      cli_error("query 'report-summary': %s", sqlite3_errmsg(db));
      rc = cli_sqlite_exit(db);
    }
    free(aUnit);
    sqlite3_finalize(s);
  }
  named_query_list_free(&list);
  return rc;
}

/*
** Write the HTML page of run runId (report_html.c; findings already in
** temp.finding) to zPath ("-": stdout).  Returns an exit code.
*/
static int write_html(Cli *p, sqlite3 *db, int64_t runId, int64_t iStep,
                      const char *zPath){
  Buf page;
  PfError e = {0};
  int rc = EXIT_OK;
  buf_init(&page);
  if( report_html_run(db, runId, iStep, p->dbGiven ? p->zDb : NULL, &page,
                      &e) ){
    cli_error("%s", e.zMsg);
    rc = cli_sqlite_exit(db);
  }else if( html_write_file(zPath, &page, &e) ){
    /* an output FILE that cannot be written: a bad value */
    cli_error("%s", e.zMsg);
    rc = EXIT_USAGE;
  }else if( strcmp(zPath, "-") ){
    fprintf(stderr, "profan: wrote %s (%zu bytes)\n", zPath, page.n);
  }
  buf_free(&page);
  return rc;
}

/*
** --step N of the HTML timeline: the lowest rank with steps must have
** step N.  Returns 0, or prints why not ("run 3 has no step 99 (rank 0
** has steps 10..12)") and returns 1.
*/
static int check_step(sqlite3 *db, int64_t runId, int64_t iStep){
  int64_t rank = db_int(db, -1,
      db_statement("cmd-report-first-rank"), (long long)runId);
  if( rank<0 ){
    cli_error("run %lld has no steps: --step %lld cannot be drawn",
              (long long)runId, (long long)iStep);
    return 1;
  }
  if( db_int(db, 0,
      db_statement("cmd-report-step-exists"),
      (long long)runId, (long long)rank,
             (long long)iStep)==0 ){
    cli_error("run %lld has no step %lld (rank %lld has steps %lld..%lld)",
              (long long)runId, (long long)iStep, (long long)rank,
              (long long)db_int(db, 0,
               db_statement("cmd-report-first-step"),
                                (long long)runId, (long long)rank),
              (long long)db_int(db, 0,
               db_statement("cmd-report-last-step"),
                                (long long)runId, (long long)rank));
    return 1;
  }
  return 0;
}

/*
** profan report [RUN] [--baseline NAME] [--param [RULE.]K=V]...
**               [--html FILE [--step N]]
** RUN defaults to the latest run.  Table and markdown print the summary,
** then the findings; JSON one object {summary, findings}; CSV the one
** --section NAME names.  --html writes
** the HTML page instead of printing.
*/
int report_cmd(Cli *p){
  const char *zBase = cli_option(p, "baseline", NULL, 1);
  const char *zHtml = cli_option(p, "html", NULL, 1);
  const char *zStep = cli_option(p, "step", NULL, 1);
  const char *azKey[REPORT_MAX_PARAMS], *azVal[REPORT_MAX_PARAMS], *z;
  char *azOwn[REPORT_MAX_PARAMS];
  int nKV = 0, rc = EXIT_OK, nFind;
  int64_t runId, iStep = -1;
  sqlite3 *db;
  sqlite3_stmt *s;
  NqList rules;
  PfError e = {0};
  OutDoc doc;
  char zTitle[64];
  const char *zOnly;

  while( (z = cli_option(p, "param", "p", 1))!=NULL ){
    const char *zEq = strchr(z, '=');
    if( nKV==REPORT_MAX_PARAMS ) cli_usage_error(p, "too many --param");
    if( zEq==NULL || zEq==z ) cli_usage_error(p, "--param needs K=V, got"
                                              " '%s'", z);
    azOwn[nKV] = xstrndup(z, (size_t)(zEq-z));
    azKey[nKV] = azOwn[nKV];
    azVal[nKV++] = zEq+1;
  }
  zOnly = zHtml ? NULL : cli_section(p);
  cli_verify_options(p);
  if( zStep ){
    char *zEnd;
    if( zHtml==NULL ) cli_usage_error(p, "--step needs --html");
    iStep = strtoll(zStep, &zEnd, 10);
    if( *zStep==0 || *zEnd || iStep<0 ){
      cli_usage_error(p, "--step needs a step number >= 0");
    }
  }
  if( zHtml && zHtml[0]==0 ) cli_usage_error(p, "--html needs a FILE");
  if( p->argc>2 || (zBase && p->argc>1) ){
    cli_usage_error(p, "give one RUN or --baseline NAME");
  }
  db = cli_open_db(p, DB_OPEN_READONLY);
  rc = cli_resolve_run(db, zBase ? zBase : p->argc==2 ? p->argv[1] : "latest",
                       zBase ? CLI_RUN_BASELINE : 0, &runId);
  if( rc!=EXIT_OK ) goto done;
  if( rules_load_all(&rules, &e) ){
    cli_error("%s", e.zMsg);
    rc = EXIT_SQL;
    goto done;
  }
  if( rules_check(db, &rules, runId, azKey, azVal, nKV, &e) ){
    /* an unknown parameter or a value its type refuses: nothing ran */
    named_query_list_free(&rules);
    cli_error("%s", e.zMsg);
    rc = cli_error_exit(&e, EXIT_USAGE);
    goto done;
  }
  nFind = rules_run(db, &rules, runId, azKey, azVal, nKV, &e);
  named_query_list_free(&rules);
  if( nFind<0 ){
    cli_error("%s", e.zMsg);
    rc = cli_sqlite_exit(db);
    goto done;
  }
  if( zHtml ){
    if( iStep>=0 && check_step(db, runId, iStep) ){
      rc = EXIT_USAGE;
      goto done;
    }
    rc = write_html(p, db, runId, iStep, zHtml);
    goto done;
  }
  output_doc_begin(&doc, p->eFmt, stdout, zOnly);
  snprintf(zTitle, sizeof(zTitle), "report: run %lld", (long long)runId);
  output_doc_title(&doc, zTitle);
  rc = print_summary(db, &doc, runId);
  if( rc!=EXIT_OK ) goto done;
  if( output_doc_wants(&doc, "findings") ){
    s = db_prepare(db, db_statement("findings-by-severity"), &e);
    if( s==NULL ){
      cli_error("%s", e.zMsg);
      rc = cli_sqlite_exit(db);
      goto done;
    }
    snprintf(zTitle, sizeof(zTitle), "findings (%d)", nFind);
    doc.zTitle = zTitle;
    if( output_doc_section(&doc, "findings", s, NULL)!=SQLITE_DONE ){
      cli_error("%s", sqlite3_errmsg(db));
      rc = cli_sqlite_exit(db);
    }
    sqlite3_finalize(s);
  }
  output_doc_end(&doc);
done:
  for(int i=0; i<nKV; i++) free(azOwn[i]);
  db_close(db);
  return rc;
}
