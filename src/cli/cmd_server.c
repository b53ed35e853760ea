/*
** cmd_server.c — a team's history on PostgreSQL from the command line:
** `profan push` (runs of the local database to the server) and the
** --history URL of check, trend, runs and diff (cli_open_history).
**
** Pipeline position: front end over the server layer (server/pg_push.c,
** server/pg_source.c).  Errors of the server are one line and exit 7; a
** string that is no connection string is exit 2.  The URL given is never
** printed (it may hold a password): messages name the server by its
** database, host and port.
*/
#include "cli/cli.h"
#include "core/db.h"
#include "history/history_source.h"
#include "server/pg_conn.h"
#include "server/pg_push.h"
#include "server/pg_schema.h"
#include "server/pg_source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The source of the command's history (one per process), closed at exit
** after the command closed its scratch database. */
static PgSource *gSrc;

static void history_close(void){
  pg_source_close(gSrc, 0);
  gSrc = NULL;
}

sqlite3 *cli_open_history(Cli *p, const char *zUrl, int ePull){
  PfError e = {0};
  (void)p;
  gSrc = pg_source_open(zUrl, (ePull & PG_OPEN_LAZY)!=0, &e);
  ePull &= PG_PULL_ALL;
  if( gSrc==NULL || (ePull && pg_source_pull(gSrc, ePull, &e)) ){
    cli_die(NULL, cli_error_exit(&e, EXIT_DB), "%s", e.zMsg);
  }
  atexit(history_close);
  return pg_source_db(gSrc);
}

int cli_history_local_run(Cli *p, const char *zRef, int64_t *pId){
  PfError e = {0};
  sqlite3 *dbL;
  int64_t localId;
  int rc;
  *pId = 0;
  if( !p->dbGiven && access(p->zDb, F_OK)!=0 ) return -1;
  dbL = cli_open_db(p, DB_OPEN_READONLY);
  rc = cli_resolve_run(dbL, zRef, 0, &localId);
  if( rc==EXIT_OK && pg_source_add_local(gSrc, dbL, localId, pId, &e) ){
    rc = cli_fail(cli_error_exit(&e, EXIT_DB), "%s", e.zMsg);
  }
  db_close(dbL);
  return rc;
}

int cli_history_run(sqlite3 *db, int64_t id){
  PfError e = {0};
  if( history_source_run(db, id, &e) ){
    return cli_fail(cli_error_exit(&e, EXIT_DB), "%s", e.zMsg);
  }
  return EXIT_OK;
}

int cli_history_all(void){
  PfError e = {0};
  if( gSrc && pg_source_pull(gSrc, PG_PULL_ALL, &e) ){
    return cli_fail(cli_error_exit(&e, EXIT_DB), "%s", e.zMsg);
  }
  return EXIT_OK;
}

int cli_history_ref(sqlite3 *db, const char *zRef){
  PfError e = {0};
  if( gSrc==NULL || db!=pg_source_db(gSrc) ) return EXIT_OK;
  if( pg_source_pull_ref(gSrc, zRef, &e) ){
    return cli_fail(cli_error_exit(&e, EXIT_DB), "%s", e.zMsg);
  }
  return EXIT_OK;
}

int cli_history_metric(sqlite3 *db, const char *zMetric){
  PfError e = {0};
  if( gSrc==NULL ) return EXIT_OK;
  if( pg_source_pull_metric(gSrc, zMetric, &e)
      || (!db_int(db, 0, db_statement("cmd-history-metric-exists"), zMetric)
          && pg_source_pull(gSrc, PG_PULL_METRICS, &e)) ){
    return cli_fail(cli_error_exit(&e, EXIT_DB), "%s", e.zMsg);
  }
  return EXIT_OK;
}

/* Says that a push waits for another (the server's push lock). */
static void push_wait_note(void *pArg, int bDone, double sec){
  (void)pArg;
  if( !bDone ){
    fprintf(stderr, "profan: waiting for another push to the history"
            " server to finish\xE2\x80\xA6\n");
  }else{
    fprintf(stderr, "profan: the other push finished after %.1f s\n", sec);
  }
}

/*
** profan push [RUN...] [--to URL] [--quiet] [--timeout S]
** Copies each RUN (default: latest) of the local database to the history
** server in one transaction; a run the server holds already (same
** content) is said and skipped.
*/
int push_cmd(Cli *p){
  const char *zTo = cli_option(p, "to", NULL, 1);
  int bQuiet = cli_option(p, "quiet", "q", 0)!=NULL;
  PgPushOpts o;
  PgPushResult res;
  PfError e = {0};
  PgConn *c;
  sqlite3 *db;
  int64_t *aRun;
  int nRun, rc = EXIT_OK;
  cli_timeout_option(p);
  cli_verify_options(p);
  if( zTo==NULL ) zTo = getenv("PROFAN_HISTORY");
  if( zTo==NULL || zTo[0]==0 ){
    cli_usage_error(p, "give --to URL (a PostgreSQL connection string or"
                    " postgresql:// URL), or set $PROFAN_HISTORY");
  }
  db = cli_open_db(p, DB_OPEN_READONLY);
  nRun = p->argc>1 ? p->argc-1 : 1;
  aRun = xcalloc((size_t)nRun, sizeof(int64_t));
  for(int i=0; rc==EXIT_OK && i<nRun; i++){
    rc = cli_resolve_run(db, p->argc>1 ? p->argv[i+1] : "latest", 0,
                         &aRun[i]);
  }
  if( rc!=EXIT_OK ){
    free(aRun);
    db_close(db);
    return rc;
  }
  c = pg_conn_open(zTo, &e);
  if( c==NULL || pg_schema_ensure(c, NULL, &e) ){
    pg_conn_close(c);
    free(aRun);
    db_close(db);
    return cli_fail(cli_error_exit(&e, EXIT_DB), "%s", e.zMsg);
  }
  memset(&o, 0, sizeof(o));
  o.timeout = p->timeout;
  o.xWait = push_wait_note;
  o.pLog = bQuiet ? NULL : stderr;
  cli_mark_writing();
  if( pg_push(c, db, aRun, nRun, &o, &res, &e) ){
    rc = cli_fail(cli_error_exit(&e, EXIT_DB), "%s; nothing pushed",
                  e.zMsg);
  }else if( !bQuiet ){
    printf("pushed %d run%s (%lld rows) to %s in %.0f ms", res.nPushed,
           res.nPushed==1 ? "" : "s", (long long)res.nRows, pg_conn_name(c),
           res.seconds*1000.0);
    if( res.nSkipped ) printf("; %d already there", res.nSkipped);
    printf("\n");
    for(int i=0; i<res.n; i++){
      if( !res.a[i].skipped ){
        printf("  local run %lld -> server run %lld\n",
               (long long)res.a[i].localId, (long long)res.a[i].serverId);
      }
    }
  }
  free(res.a);
  pg_conn_close(c);
  free(aRun);
  db_close(db);
  return rc;
}
