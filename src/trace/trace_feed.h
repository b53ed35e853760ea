/*
** trace_feed.h — the stored-rows feeder of what is kept of every trace
** row: a run's cpu_op, runtime_call, kernel and gpu_mem_op rows read back
** from the database and handed to trace_keep.h, as the trace writer hands
** each row while it inserts it.
**
** This is the seam between the two feeders of the writer's totals and
** spans (CONTRIBUTING.md "One path per number"): the numbers come from
** one implementation (trace_totals.c, trace_spans.c, op_store.c) whoever
** feeds it.  Used when the rows in the database are not the ones the
** writer saw: after a file was linked again (ingest.c, trace_relink.h),
** after a merge copied shards' rows into one run (merge.c), and by
** `profan rebuild`.
**
** Pipeline position: between "load" and "derive".
*/
#ifndef PROFAN_TRACE_FEED_H
#define PROFAN_TRACE_FEED_H

#include <sqlite3.h>
#include <stdint.h>
#include "core/util.h"
#include "trace/trace_spans.h"
#include "trace/trace_totals.h"

/* Feed every trace row of run runId to pTot and pSpans (either may be
** NULL; both fresh: nothing of the run fed before), then end each trace
** file with its rank.  Returns 0 or -1 with pErr set. */
int trace_feed_run(sqlite3 *db, int64_t runId, TraceTotals *pTot,
                   TraceSpans *pSpans, PfError *pErr);

#endif
