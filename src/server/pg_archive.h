/*
** pg_archive.h — a local run as a history server holds it once pushed.
**
** merge --summaries-only's own code (merge_archive_run) copies the run
** into a scratch database, after what decides its ids and its name there
** was pulled from the server: the server's ids of the strings it names,
** the runs whose names it could take, the baselines it names, and the
** largest id of every table (the copy's ids start above them).  The
** scratch then holds the run exactly as the server will: `push` sends
** those rows (pg_push.c); `check --history` compares it (pg_source.c).
**
** Pipeline position: the server layer.
*/
#ifndef PROFAN_PG_ARCHIVE_H
#define PROFAN_PG_ARCHIVE_H

#include <sqlite3.h>
#include <stdint.h>
#include "server/pg_conn.h"
#include "server/pg_rows.h"

/*
** Copy run runId of dbLocal into scratch database db as the server at c
** would hold it after a push (inside the caller's transactions, if any).
** *pNewId gets its id in db, or 0 when the server (or db) already holds a
** run of the same content: *pSame then gets that run's id and
** *pbOnServer is 1 when it is the server's.  *pStrFloor: the server's
** largest string id (the strings of db above it are new).  Returns 0, or
** -1 with pErr set.
*/
int pg_archive_run(PgConn *c, const PgPlan *plan, sqlite3 *db,
                   sqlite3 *dbLocal, int64_t runId, int64_t *pNewId,
                   int64_t *pSame, int *pbOnServer, int64_t *pStrFloor,
                   PfError *pErr);

#endif
