/*
** derive_run.h — the derive passes that follow the load of a run, in
** their order, for the two places that build a run: ingest.c and merge.c.
*/
#ifndef PROFAN_DERIVE_RUN_H
#define PROFAN_DERIVE_RUN_H

#include "trace/trace_spans.h"
#include "core/util.h"

#include <sqlite3.h>
#include <stdint.h>

/* Communication, HTA analyses (critical path and metrics), operator model
** and core run metrics of run runId; the trace passes only when hasTrace,
** from pSpans: what was kept of the run's trace rows (trace_keep.h; NULL
** when the run has none).  Prints each pass's time under PROFAN_TIMING.
** Returns 0, or -1 with pErr set. */
int derive_run_after_load(sqlite3 *db, int64_t runId, int hasTrace,
                          const TraceSpans *pSpans, PfError *pErr);

#endif
