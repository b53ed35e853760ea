/*
** cmd_runs.c — `profan runs`, `profan show RUN`, `profan rm RUN...`,
** `profan rename RUN NAME`.
**
** Pipeline position: read side (runs, show) and maintenance (rm,
** rename).
*/
#include "cli/cli.h"
#include "core/db.h"
#include "core/runref.h"
#include "server/pg_source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prepare zSql and bind ?1 (int64) and ?2/?3 (text, may be NULL); the
** caller finalizes.  NULL after printing the error. */
static sqlite3_stmt *prepare_bound(sqlite3 *db, const char *zSql, int64_t v,
                                   const char *z2, const char *z3){
  sqlite3_stmt *s;
  if( sqlite3_prepare_v2(db, zSql, -1, &s, NULL)!=SQLITE_OK ){
    cli_error("%s", sqlite3_errmsg(db));
    sqlite3_finalize(s);
    return NULL;
  }
  if( sqlite3_bind_parameter_count(s)>=1 ) sqlite3_bind_int64(s, 1, v);
  if( sqlite3_bind_parameter_count(s)>=2 ) db_bind_text_or_null(s, 2, z2, -1);
  if( sqlite3_bind_parameter_count(s)>=3 ) db_bind_text_or_null(s, 3, z3, -1);
  return s;
}

/* Prepare, bind and print one statement; an exit code. */
/* Its own statements failing is the database's fault (corrupt, out of
** memory), not a user's SQL: cli_sqlite_exit() says which. */
static int print_sql(sqlite3 *db, Cli *p, const char *zSql, int64_t v,
                     const char *z2, const char *z3){
  sqlite3_stmt *s = prepare_bound(db, zSql, v, z2, z3);
  int rc;
  if( s==NULL ) return cli_sqlite_exit(db);
  rc = output_stmt(s, p->eFmt, stdout, NULL);
  if( rc!=SQLITE_DONE ) cli_error("%s", sqlite3_errmsg(db));
  sqlite3_finalize(s);
  return rc==SQLITE_DONE ? EXIT_OK : cli_sqlite_exit(db);
}

/* Print one section of a document; an exit code. */
static int print_section(sqlite3 *db, OutDoc *d, const char *zName,
                         const char *zSql, int64_t v){
  sqlite3_stmt *s;
  int rc;
  if( !output_doc_wants(d, zName) ) return EXIT_OK;
  s = prepare_bound(db, zSql, v, NULL, NULL);
  if( s==NULL ) return cli_sqlite_exit(db);
  rc = output_doc_section(d, zName, s, NULL);
  if( rc!=SQLITE_DONE ) cli_error("%s", sqlite3_errmsg(db));
  sqlite3_finalize(s);
  return rc==SQLITE_DONE ? EXIT_OK : cli_sqlite_exit(db);
}
int runs_cmd(Cli *p){
  const char *zTag = cli_option(p, "tag", NULL, 1);
  const char *zHist = cli_option(p, "history", NULL, 1);
  char *zKey = NULL;
  const char *zVal = NULL;
  sqlite3 *db;
  int rc;
  cli_verify_options(p);
  if( p->argc!=1 ) cli_usage_error(p, "no arguments expected");
  if( zTag ){
    const char *zEq = strchr(zTag, '=');
    if( zEq==NULL ) cli_usage_error(p, "--tag needs KEY=VALUE");
    zKey = xstrndup(zTag, (size_t)(zEq-zTag));
    zVal = zEq+1;
  }
  db = zHist ? cli_open_history(p, zHist, PG_PULL_FILES)
             : cli_open_db(p, DB_OPEN_READONLY);
  rc = print_sql(db, p,
    db_statement("cmd-runs-list"), 0, zKey, zVal);
  free(zKey);
  db_close(db);
  return rc;
}

int show_cmd(Cli *p){
  int bAll = cli_option(p, "all-devices", NULL, 0)!=NULL;
  const char *zOnly = cli_section(p);
  sqlite3 *db;
  sqlite3_stmt *s;
  int64_t runId, nShown = 0, nAll;
  OutDoc d;
  int rc;
  cli_verify_options(p);
  if( p->argc!=2 ) cli_usage_error(p, "give one RUN");
  db = cli_open_db(p, DB_OPEN_READONLY);
  if( (rc = cli_resolve_run(db, p->argv[1], 0, &runId))!=EXIT_OK ){
    db_close(db);
    return rc;
  }
  output_doc_begin(&d, p->eFmt, stdout, zOnly);
  rc = print_section(db, &d, "run",
    db_statement("cmd-runs-select-run-tag"), runId);
  if( rc==EXIT_OK ) rc = print_section(db, &d, "files",
    db_statement("cmd-runs-files"), runId);
  if( rc==EXIT_OK && output_doc_wants(&d, "devices") ){
    s = prepare_bound(db,
        db_statement("cmd-runs-show-devices"),
        runId, bAll ? "all" : NULL, NULL);
    if( s==NULL ) rc = cli_sqlite_exit(db);
    else if( output_doc_section(&d, "devices", s, &nShown)!=SQLITE_DONE ){
      cli_error("%s", sqlite3_errmsg(db));
      rc = cli_sqlite_exit(db);
    }
    sqlite3_finalize(s);
    nAll = db_int(db, 0, "SELECT count(*) FROM device WHERE run_id=%lld",
                  (long long)runId);
    if( rc==EXIT_OK && nAll>nShown ){
      fprintf(stderr, "profan: devices: %lld of %lld listed (each rank's own"
              " GPU); --all-devices lists every GPU the traces saw\n",
              (long long)nShown, (long long)nAll);
    }
  }
  if( rc==EXIT_OK ) rc = print_section(db, &d, "steps",
    db_statement("cmd-runs-select-step"), runId);
  /* the ranks' clock offsets (schema/050-straggler-clock.sql): only for
  ** runs whose ranks share collectives, unless asked for by name */
  if( rc==EXIT_OK && (zOnly || db_int(db, 0,
     db_statement("cmd-runs-has-clocks"), (long long)runId)) ){
    rc = print_section(db, &d, "clocks",
      db_statement("cmd-runs-clocks"), runId);
  }
  output_doc_end(&d);
  db_close(db);
  return rc;
}

/* Names of the baselines pointing at run runId, ", "-separated, into pOut
** (empty when none).  Returns the number of names. */
static int baselines_of(sqlite3 *db, int64_t runId, Buf *pOut){
  sqlite3_stmt *s = prepare_bound(db,
    "SELECT name FROM baseline WHERE run_id=?1 ORDER BY name", runId,
    NULL, NULL);
  int n = 0;
  buf_reset(pOut);
  while( s && sqlite3_step(s)==SQLITE_ROW ){
    buf_printf(pOut, "%s'%s'", n++ ? ", " : "",
               (const char *)sqlite3_column_text(s, 0));
  }
  sqlite3_finalize(s);
  return n;
}

/*
** profan rm RUN...: every RUN is resolved first, and only when all exist
** (and none is ambiguous: a number that is one run's id and another's
** name) are they deleted, in one transaction; then one line per run
** removed (with the baselines that named it).  Any error deletes
** nothing.
*/
int rm_cmd(Cli *p){
  sqlite3 *db;
  PfError e = {0};
  int64_t *aId;
  char **azDone;
  int nId = 0, nBad = 0, rc = EXIT_OK;
  Buf names;
  cli_timeout_option(p);
  cli_verify_options(p);
  if( p->argc<2 ) cli_usage_error(p, "give at least one RUN");
  db = cli_open_write(p, 0);
  if( (rc = cli_begin_write(p, db, NULL))!=EXIT_OK ){
    db_close(db);
    return rc;
  }
  /* every RUN is checked before anything is removed: all or nothing */
  aId = xcalloc((size_t)p->argc, sizeof(int64_t));
  for(int i=1; i<p->argc; i++){
    int64_t id;
    int dup = 0, r = cli_resolve_run(db, p->argv[i], CLI_RUN_STRICT, &id);
    if( r!=EXIT_OK ){
      if( r!=EXIT_USAGE || rc==EXIT_OK ) rc = r;
      nBad++;
      continue;
    }
    for(int k=0; k<nId; k++) dup |= aId[k]==id;
    if( !dup ) aId[nId++] = id;
  }
  if( nBad>0 ){
    if( rc==EXIT_USAGE ){
      cli_error("nothing removed (%d of %d RUN%s not found or ambiguous)",
                nBad, p->argc-1, p->argc-1==1 ? "" : "s");
    }
    db_rollback(db);
    db_close(db);
    free(aId);
    return rc;
  }
  buf_init(&names);
  azDone = xcalloc((size_t)nId+1, sizeof(char *));
  for(int k=0; k<nId && nBad==0; k++){
    int nBase = baselines_of(db, aId[k], &names);
    sqlite3_stmt *s = prepare_bound(db, "SELECT name FROM run WHERE id=?1",
                                    aId[k], NULL, NULL);
    const char *zName = s && sqlite3_step(s)==SQLITE_ROW
                      ? (const char *)sqlite3_column_text(s, 0) : NULL;
    azDone[k] = xasprintf("removed run %lld (%s)%s%s%s", (long long)aId[k],
                          zName ? zName : "?",
                          nBase ? " and its baseline" : "",
                          nBase>1 ? "s " : nBase ? " " : "",
                          buf_str(&names));
    sqlite3_finalize(s);
    if( runref_delete(db, aId[k], &e) ){
      cli_error("%s: %s; nothing removed", p->zDb,
                db_lost_reason(db) ? db_lost_reason(db) : e.zMsg);
      nBad++;
    }
  }
  if( nBad ){
    db_rollback(db);
    rc = EXIT_DB;
  }else{
    rc = cli_commit(p, db);
  }
  /* said once it is done, not before a commit that may fail */
  for(int k=0; k<nId; k++){
    if( rc==EXIT_OK ) fprintf(stderr, "profan: %s\n", azDone[k]);
    free(azDone[k]);
  }
  free(azDone);
  db_close(db);
  free(aId);
  buf_free(&names);
  return rc;
}

/*
** profan rename RUN NAME: the run's new name, which must be free and read
** as no id (see cli_check_name).
*/
int rename_cmd(Cli *p){
  sqlite3 *db;
  int64_t runId, other;
  int rc;
  cli_timeout_option(p);
  cli_verify_options(p);
  if( p->argc!=3 ) cli_usage_error(p, "give RUN and its new NAME");
  cli_check_name(p, "NAME", p->argv[2]);
  db = cli_open_write(p, 0);
  if( (rc = cli_begin_write(p, db, NULL))!=EXIT_OK ){
    db_close(db);
    return rc;
  }
  /* an old run named "3" is renamed by its id: strict, never a guess */
  rc = cli_resolve_run(db, p->argv[1], CLI_RUN_STRICT, &runId);
  other = rc==EXIT_OK ? db_int(db, 0, "SELECT id FROM run WHERE name=%Q",
                               p->argv[2]) : 0;
  if( rc==EXIT_OK && other>0 && other!=runId ){
    rc = cli_fail(EXIT_USAGE, "the name '%s' is taken by run %lld; nothing"
                  " renamed", p->argv[2], (long long)other);
  }
  if( rc==EXIT_OK ){
    sqlite3_stmt *s = prepare_bound(db, "UPDATE run SET name=?2 WHERE id=?1",
                                    runId, p->argv[2], NULL);
    if( s==NULL || sqlite3_step(s)!=SQLITE_DONE ){
      rc = cli_fail(EXIT_DB, "%s: %s; nothing written", p->zDb,
                    db_lost_reason(db) ? db_lost_reason(db)
                                       : sqlite3_errmsg(db));
    }
    sqlite3_finalize(s);
  }
  if( rc==EXIT_OK ){
    rc = cli_commit(p, db);
  }else{
    db_rollback(db);
  }
  if( rc==EXIT_OK ){
    fprintf(stderr, "profan: run %lld is named '%s'\n", (long long)runId,
            p->argv[2]);
  }
  db_close(db);
  return rc;
}
