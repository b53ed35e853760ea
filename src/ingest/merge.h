/*
** merge.h — combine shard databases (each made by `profan ingest` of some
** rank files of one run, typically one node's) into one run of a target
** database, as if all the files had been ingested by one process.
**
** Pipeline position: beside ingest.c.  The shards' raw rows are copied
** with their strings and row ids remapped, then the run-level derive
** passes of an ingest run over the whole run.  One transaction.
*/
#ifndef PROFAN_MERGE_H
#define PROFAN_MERGE_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include "core/db.h"
#include "core/util.h"

typedef struct MergeOpts {
  const char *zName;       /* run name; NULL = the first shard's run name */
  const char **azShard;    /* shard database paths */
  int nShard;
  FILE *pLog;              /* notes (shards skipped), or NULL */
  int summariesOnly;       /* history: every run of each source becomes a
                           ** run of the target, without its event rows */
  double timeout;          /* seconds to wait for another writer of the
                           ** target (< 0: as long as it takes) */
  DbWaitFn xWait;          /* told when that wait starts and ends, or NULL */
} MergeOpts;

typedef struct MergeResult {
  int64_t runId;           /* the merged run (0 when nothing was merged) */
  char zName[256];
  int appended;            /* the run existed: the shards were added to it */
  int nMerged;             /* shards copied */
  int nSkipped;            /* shards already in the target (same files) */
  int nFiles;              /* files of the run after the merge */
  int64_t nRows;           /* rows copied */
  int exitCode;            /* on failure: MERGE_BAD_SHARD, MERGE_NOT_ONE_RUN
                           ** or MERGE_DB_FAILED */
  double seconds;
} MergeResult;

/* Why a merge failed (MergeResult.exitCode). */
#define MERGE_BAD_SHARD 1      /* a shard missing, unreadable or corrupt */
#define MERGE_NOT_ONE_RUN 2    /* shards that do not form one run */
#define MERGE_DB_FAILED 3      /* the target database (or memory) failed */

/*
** Merge the shards into db.  Returns 0 (also when every shard was already
** there: pRes->nMerged is 0), or -1 with the one-line message (without
** "profan: ") in pMsg and pRes->exitCode set; the database is then left
** exactly as it was.
*/
int merge_run(sqlite3 *db, const MergeOpts *pOpt, MergeResult *pRes,
              Buf *pMsg);

/* The ids a copy gives start above xFloor(pArg, TABLE) for TABLE "run",
** "string" and each table with an INTEGER PRIMARY KEY id (0: no floor):
** a copy into a scratch database then takes the ids a history server
** would give it (server/pg_archive.c). */
typedef struct MergeFloor {
  int64_t (*xFloor)(void *pArg, const char *zTable);
  void *pArg;
} MergeFloor;

/*
** What --summaries-only does for one run, on open connections: run srcRun
** of dbSrc becomes a new run of db (its name, or NAME-2... when taken;
** strings and ids remapped, above pFloor's when not NULL), inside the
** caller's transaction on db.  *pNewRun gets its id, or 0 when db has a
** run of the same content (*pSame then gets that run's id).  Returns 0,
** or -1 with pErr set.
*/
int merge_archive_run(sqlite3 *db, sqlite3 *dbSrc, int64_t srcRun,
                      const MergeFloor *pFloor, int64_t *pNewRun,
                      int64_t *pSame, PfError *pErr);

#endif
