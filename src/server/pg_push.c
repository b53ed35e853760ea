/*
** pg_push.c — `profan push`: runs of a local database into a team's
** history server (see pg_push.h).
**
** Pipeline position: the server layer.  The sequence: a scratch database
** (db_open_scratch) for the runs as the server will hold them; BEGIN on
** the server and the push lock (pg_advisory_xact_lock, PG_LOCK_PUSH:
** ids are the largest + 1, as a local history's); for each run
** pg_archive_run() (skipped when the server has its content) and
** pg_rows_push_run(); COMMIT.  A failure or a lost connection rolls the
** server back (the transaction dies with the connection); the local
** database is only read.
*/
#include "server/pg_push.h"
#include "server/pg_archive.h"
#include "server/pg_rows.h"
#include "server/pg_schema.h"
#include "core/db.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* BEGIN on the server and the push lock, waiting up to o->timeout
** seconds for another push (saying so through o->xWait).  0 or -1. */
static int take_lock(PgConn *c, const PgPushOpts *o, PfError *pErr){
  char zKey[32], zMs[32];
  const char *azKey[1] = { zKey }, *azMs[1] = { zMs };
  PGresult *r;
  int got;
  double t0;
  snprintf(zKey, sizeof(zKey), "%lld", (long long)PG_LOCK_PUSH);
  if( pg_conn_run(c, "BEGIN", 0, NULL, pErr) ) return -1;
  if( o->timeout>=0 ){
    /* lock_timeout 0 would be none: at least 1 ms */
    double ms = o->timeout*1000.0;
    snprintf(zMs, sizeof(zMs), "%.0fms", ms<1 ? 1 : ms);
    if( pg_conn_run(c, "SELECT set_config('lock_timeout', $1, true)", 1,
                    azMs, pErr) ){
      return -1;
    }
  }
  r = pg_conn_exec(c, "SELECT pg_try_advisory_xact_lock($1::bigint)", 1,
                   azKey, pErr);
  if( r==NULL ) return -1;
  got = strcmp(PQgetvalue(r, 0, 0), "t")==0;
  PQclear(r);
  if( got ) return 0;
  if( o->xWait ) o->xWait(o->pWaitArg, 0, 0);
  t0 = util_now_ms();
  if( pg_conn_run(c, "SELECT pg_advisory_xact_lock($1::bigint)", 1, azKey,
                  NULL) ){
    char z[200];
    if( strcmp(pg_conn_sqlstate(c), "55P03")==0 ){
      snprintf(z, sizeof(z), "another push still holds it after %.1f s"
               " (--timeout); nothing pushed", o->timeout);
      pg_conn_error(c, NULL, z, pErr);
    }else{
      pg_conn_error(c, NULL, NULL, pErr);
    }
    return -1;
  }
  if( o->xWait ) o->xWait(o->pWaitArg, 1, (util_now_ms()-t0)/1000.0);
  return 0;
}

/* COMMIT with SIGINT and SIGTERM held: once it is sent, the push is
** stored or not, and the command says which (a signal then waits for the
** end of the command).  0 or -1. */
static int commit(PgConn *c, PfError *pErr){
  sigset_t set, old;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, &old);
  if( pg_conn_run(c, "COMMIT", 0, NULL, pErr) ){
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return -1;
  }
  return 0;
}

/* One run: archived into db as the server will hold it, then sent (or
** skipped when the server has its content).  0 or -1. */
static int push_one(PgConn *c, const PgPlan *plan, sqlite3 *db,
                    sqlite3 *dbLocal, PgPushRun *r, const PgPushOpts *o,
                    PfError *pErr){
  int64_t newId, same, strFloor = 0;
  int onServer;
  if( pg_archive_run(c, plan, db, dbLocal, r->localId, &newId, &same,
                     &onServer, &strFloor, pErr) ){
    return -1;
  }
  if( newId==0 ){
    r->skipped = 1;
    r->serverId = same;
    if( o->pLog ){
      char *zName = NULL;
      sqlite3_stmt *s = db_prepare(dbLocal, db_statement("pg-push-one"), NULL);
      if( s ){
        sqlite3_bind_int64(s, 1, r->localId);
        if( sqlite3_step(s)==SQLITE_ROW ){
          zName = xstrdup((const char *)sqlite3_column_text(s, 0));
        }
        sqlite3_finalize(s);
      }
      fprintf(o->pLog, "profan: run %s is already on the history server"
              " as run %lld (same content); skipped\n", zName ? zName : "?",
              (long long)same);
      free(zName);
    }
    return 0;
  }
  r->serverId = newId;
  return pg_rows_push_run(c, plan, db, newId, strFloor, &r->nRows, pErr);
}

int pg_push(PgConn *c, sqlite3 *dbLocal, const int64_t *aRun, int nRun,
            const PgPushOpts *pOpt, PgPushResult *pRes, PfError *pErr){
  sqlite3 *db;
  PgPlan plan;
  double t0 = util_now_ms();
  int rc = -1;
  memset(pRes, 0, sizeof(*pRes));
  pRes->a = xcalloc((size_t)(nRun>0 ? nRun : 1), sizeof(PgPushRun));
  pRes->n = nRun;
  for(int i=0; i<nRun; i++) pRes->a[i].localId = aRun[i];
  memset(&plan, 0, sizeof(plan));
  db = db_open_scratch(pErr);
  if( db==NULL ) return -1;
  if( pg_plan_build(db, &plan, pErr)==0 && db_exec(db, "BEGIN", pErr)==0
      && take_lock(c, pOpt, pErr)==0 ){
    rc = 0;
    for(int i=0; rc==0 && i<nRun; i++){
      rc = push_one(c, &plan, db, dbLocal, &pRes->a[i], pOpt, pErr);
      if( rc==0 ){
        pRes->nRows += pRes->a[i].nRows;
        if( pRes->a[i].skipped ) pRes->nSkipped++;
        else pRes->nPushed++;
      }
    }
    if( rc==0 && pRes->nPushed>0 ) rc = commit(c, pErr);
  }
  if( rc || pRes->nPushed==0 ){
    /* nothing of it stays; a connection already gone rolled back */
    if( !pg_conn_lost(c) ) pg_conn_run(c, "ROLLBACK", 0, NULL, NULL);
  }
  if( rc && !pErr->set ){
    pg_conn_error(c, NULL, NULL, pErr);
  }
  pg_plan_free(&plan);
  db_close(db);
  pRes->seconds = (util_now_ms()-t0)/1000.0;
  return rc;
}
