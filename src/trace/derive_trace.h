/*
** derive_trace.h — per-run derived data for traces, computed once at the
** end of an ingest inside its transaction: indexes, steps, CPU op nesting,
** kernel -> runtime call -> CPU op linkage, step assignment, GPU busy time
** and idle gaps, and the priority breakdown of wall time per step.
**
** Pipeline position: "derive" and "index".  Interval questions are answered
** by sweeps over intervals in time order (what was kept of the rows:
** trace_keep.h), never by interval joins.
*/
#ifndef PROFAN_DERIVE_TRACE_H
#define PROFAN_DERIVE_TRACE_H

#include <sqlite3.h>
#include <stdint.h>
#include "core/util.h"
#include "trace/trace_spans.h"
#include "trace/trace_totals.h"

/* Create the trace indexes when missing, after the bulk load (building
** them then is cheaper than keeping them up to date while loading:
** bench/README.md has the numbers).  Returns 0 or -1 (pErr). */
int derive_trace_indexes(sqlite3 *db, PfError *pErr);

/* Build the indexes of bulk_index (schema/024-bulk-indexes.sql) whose grp
** is zGroup ("trace" or "memory"), in seq order, each IF NOT EXISTS; with
** PROFAN_TIMING set, print each one's time.  Returns 0 or -1 with pErr. */
int derive_bulk_indexes(sqlite3 *db, const char *zGroup, PfError *pErr);

/* Compute every derived table of run runId but gpu_op_summary, which is
** written from pTot before this runs and which the wall-time sweep reads:
** steps, GPU busy time and gaps, gap steps, step time, and the 009
** summaries from pTot once the GPU rows that came without a step have
** theirs.  pTot and pSpans: what was kept of the run's trace rows
** (trace_keep.h), by the writer or the stored-rows feeder.  *pzNote
** receives a note for the user (e.g. steps found by gap detection), or
** NULL; caller frees it with free().  Returns 0 or -1 with pErr set. */
int derive_trace_run(sqlite3 *db, int64_t runId, TraceTotals *pTot,
                     const TraceSpans *pSpans, char **pzNote, PfError *pErr);

#endif
