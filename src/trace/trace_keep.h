/*
** trace_keep.h — what is kept of every trace row besides the row itself:
** the totals (trace_totals.h) and the intervals and calls the derive
** passes read (trace_spans.h, which owns the operator calls of
** op_store.h).
**
** The one place both feeders hand rows to (CONTRIBUTING.md "One path per
** number"): the trace writer (load_trace.c) as it inserts each row, and
** the stored-rows feeder (trace_feed.c) reading a run's rows back.
**
** Pipeline position: "load".
*/
#ifndef PROFAN_TRACE_KEEP_H
#define PROFAN_TRACE_KEEP_H

#include <sqlite3.h>
#include "trace/trace_row.h"
#include "trace/trace_spans.h"
#include "trace/trace_totals.h"

/* Before the first row: read what the kept calls and spans need from db
** (the TF32 kernel patterns, the host collective patterns; the files' id
** ranges as they come).  Either of pTot, pSpans may be NULL. */
void trace_keep_begin(TraceTotals *pTot, TraceSpans *pSpans, sqlite3 *db);

/* Row r to the totals and the spans (either may be NULL). */
void trace_keep_row(TraceTotals *pTot, TraceSpans *pSpans, const TraceRow *r);

/* File fileId ended: its rows moved by dTs ns and its final rank. */
void trace_keep_file_done(TraceTotals *pTot, TraceSpans *pSpans,
                          int64_t fileId, int64_t dTs, int64_t rank);

#endif
