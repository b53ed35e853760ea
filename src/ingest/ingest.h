/*
** ingest.h — one ingest: discover the files, open a transaction, parse the
** files in parallel worker threads, load their rows through the single
** writer, derive, commit.  Any error rolls the whole ingest back.
**
** Pipeline position: the driver of discover -> parse -> load -> derive.
*/
#ifndef PROFAN_INGEST_H
#define PROFAN_INGEST_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include "core/db.h"
#include "core/util.h"
#include "ingest/ingest_opts.h"


/*
** Ingest the files under azPath[0..nPath) as one run.  On failure returns
** non-zero and writes the one-line message (without the "profan: " prefix)
** into pMsg; the database is left as it was.  Notes for pOpt->pLog
** (skipped files, repaired records) are written only when it succeeds.
*/
int ingest_run(sqlite3 *db, const char **azPath, int nPath,
               const IngestOpts *pOpt, IngestResult *pRes, Buf *pMsg);

#endif
