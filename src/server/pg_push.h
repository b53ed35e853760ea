/*
** pg_push.h — `profan push`: copy runs of a local database into a team's
** history on PostgreSQL, with what `merge --summaries-only` keeps.
**
** Pipeline position: the server layer (cli/cmd_server.c prints).  One
** transaction on the server for all the runs of one push; one push at a
** time assigns ids (an advisory lock), so that the server holds what a
** local history merged in the same order would, and two pushes of the
** same run store it once.
*/
#ifndef PROFAN_PG_PUSH_H
#define PROFAN_PG_PUSH_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include "server/pg_conn.h"

/* Told when a push starts waiting for another (bDone 0) and when that
** wait ends (bDone 1, seconds waited). */
typedef void (*PgWaitFn)(void *pArg, int bDone, double seconds);

typedef struct PgPushOpts {
  double timeout;          /* seconds to wait for another push (< 0: as
                           ** long as it takes) */
  PgWaitFn xWait;          /* or NULL */
  void *pWaitArg;
  FILE *pLog;              /* one line per run skipped or renamed, or NULL */
} PgPushOpts;

/* What a push did, run by run. */
typedef struct PgPushRun {
  int64_t localId;
  int64_t serverId;        /* its id on the server (the old one if skipped) */
  int skipped;             /* the server had a run of the same content */
  int64_t nRows;
} PgPushRun;

typedef struct PgPushResult {
  PgPushRun *a;            /* one per run asked for (free()) */
  int n;
  int nPushed, nSkipped;
  int64_t nRows;
  double seconds;
} PgPushResult;

/*
** Push runs aRun[0..nRun) of dbLocal (ids there) to the server at c, whose
** schema is this profan's (pg_schema_ensure).  All or nothing: on any
** error nothing of the push is on the server.  Returns 0, or -1 with pErr
** set (kind PF_KIND_DB).  pRes->a is set either way (free it).
*/
int pg_push(PgConn *c, sqlite3 *dbLocal, const int64_t *aRun, int nRun,
            const PgPushOpts *pOpt, PgPushResult *pRes, PfError *pErr);

#endif
