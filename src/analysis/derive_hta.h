/*
** derive_hta.h — the critical path of every (rank, step) of a run,
** computed once at the end of an ingest (derive_hta.c) and stored in
** hta_critical_path (schema 013-hta-analyses.sql).
**
** Pipeline position: "derive", after derive_comm_run (it reads the trace
** linkage: kernel.runtime_id, steps).
*/
#ifndef PROFAN_DERIVE_HTA_H
#define PROFAN_DERIVE_HTA_H

#include <sqlite3.h>
#include <stdint.h>
#include "core/util.h"
#include "trace/trace_spans.h"

/* Replace run runId's hta_critical_path rows.  pSpans: the rows the
** writer kept (trace_spans.h), read instead of the database when they are
** all there and the database did not redo the linkage; NULL reads the
** database.  Returns 0, or -1 with pErr set ("database: ..."). */
int derive_hta_run(sqlite3 *db, int64_t runId, const TraceSpans *pSpans,
                   PfError *pErr);

#endif
