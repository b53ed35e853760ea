/*
** trace_ids.h — the row ids of a trace file's operators and runtime
** calls (schema/129-trace-id-base.sql): id_base + n, n = 1, 2, ... per
** table, n the in-stream linker's sequence (link_trace.c), within the
** file's recorded range [id_base + 1, id_last].
**
** Pipeline position: the ingest reserves a range when it registers a
** trace file (before the parse: the parser threads number the rows) and
** shrinks it to what the file used once loaded; the consumers that index
** a file's calls by n (op_store.c, trace_totals.c) and the relinker
** (trace_relink.c) read it.
*/
#ifndef PROFAN_TRACE_IDS_H
#define PROFAN_TRACE_IDS_H

#include <stdint.h>
#include <sqlite3.h>
#include "core/util.h"

/* The most ids a trace file of nBytes bytes on disk can need (an op or a
** runtime call is one event of at least 10 bytes: {"ph":"X"}); a gzip
** file: deflate's largest ratio (1032) times that. */
int64_t trace_ids_bound(int64_t nBytes, int isGzip);

/* Record trace file fileId of run runId with ids above every id there is,
** room for nMax: *pBase, *pLast its range.  0 or -1 (pErr). */
int trace_ids_reserve(sqlite3 *db, int64_t runId, int64_t fileId,
                      int64_t nMax, int64_t *pBase, int64_t *pLast,
                      PfError *pErr);

/* File fileId's range ends at id_base + nUsed.  0 or -1 (pErr). */
int trace_ids_used(sqlite3 *db, int64_t fileId, int64_t nUsed,
                   PfError *pErr);

/* The recorded range of file fileId.  0, or -1 with pErr set (no range:
** not a trace file of the database). */
int trace_ids_range(sqlite3 *db, int64_t fileId, int64_t *pBase,
                    int64_t *pLast, PfError *pErr);

#endif
