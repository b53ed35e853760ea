/*
** ingest_opts.h — what an ingest is asked (IngestOpts) and what it did
** (IngestResult): the types the ingest sequence (ingest.c) shares with
** the parts it calls (ingest_trace.c, run_record.c) and the command.
**
** Pipeline position: ingest; types only, so that the parts of the ingest
** do not depend on its driver.
*/
#ifndef PROFAN_INGEST_OPTS_H
#define PROFAN_INGEST_OPTS_H

#include <stdint.h>
#include <stdio.h>
#include "core/db.h"

typedef struct IngestOpts {
  const char *zName;       /* run name, NULL = from the first path */
  const char **azTagKey;   /* --tag k=v pairs */
  const char **azTagVal;
  int nTag;
  int replace;             /* --replace: drop a run of that content/name */
  int strict;              /* --strict: warnings become errors */
  int nThreads;            /* parser threads, 0 = number of CPUs */
  int progress;            /* show progress on stderr */
  FILE *pLog;              /* where skipped-file notes and the summary go */
  double timeout;          /* seconds to wait for another writer;
                           ** < 0: no limit */
  DbWaitFn xWait;          /* told when the wait starts and ends (db.h),
                           ** or NULL */
} IngestOpts;

typedef struct IngestResult {
  int64_t runId;           /* the new run, or the existing one (duplicate) */
  int duplicate;           /* identical content was already ingested */
  int nFiles;              /* files ingested */
  int nSkipped;            /* files skipped */
  int nDuplicates;         /* files given twice or copies: loaded once */
  char zName[256];         /* the run's name (NAME-2 when NAME was taken) */
  int namePrefixed;        /* the default name read as a run id: "run-N" */
  int64_t takenBy;         /* run holding the wanted name, or 0 */
  char zTakenName[256];    /* that wanted name */
  int64_t aReplaced[8];    /* --replace: runs deleted (same content/name) */
  int nReplaced;
  char zReplacedBaselines[256]; /* baselines deleted with them, "'a', 'b'" */
  double waitSeconds;      /* waited for another writer (not in MB/s) */
  int64_t nEvents;         /* records read */
  int64_t nRows;           /* rows written */
  int64_t nBytes;          /* uncompressed bytes parsed */
  int64_t nWarnings;
  double seconds;
  int errKind;             /* on failure: PF_KIND_INPUT (a file) or
                           ** PF_KIND_DB (the database, memory) */
} IngestResult;

#endif
