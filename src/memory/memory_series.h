/*
** memory_series.h — the profiler memory series of schemas 095 and 114
** (read by the named query memory-timeline): each rank's CUDA [memory]
** events with a total in (ts, id) order, one rowid range of memory_point
** per rank (its memory_series row), and each step's last of them at or
** before the step's end (memory_step_end).
**
** Pipeline position: "derive", run by derive_run_after_load()
** (analysis/derive_run.c) for ingest, merge and rebuild.
*/
#ifndef PROFAN_MEMORY_SERIES_H
#define PROFAN_MEMORY_SERIES_H

#include <sqlite3.h>
#include <stdint.h>
#include "core/util.h"
#include "trace/trace_spans.h"

/* Empty and write again run runId's series, from the events kept in
** pSpans (trace_spans_rank_mem; NULL: the run has no trace).  0, or -1
** with pErr set. */
int memory_series_run(sqlite3 *db, int64_t runId, const TraceSpans *pSpans,
                      PfError *pErr);

#endif
