/*
** derive_core.h — the core metrics of a run, stored (schema
** 026-core-metric-stored.sql): steps, step times, GPU use, kernel
** categories, communication and memory (core_run_metric, read by
** run_metric for trend, check, diff-metrics and runs).
**
** Pipeline position: "derive", last pass of an ingest and of a merge
** (after steps, step_time, gpu_busy, the summaries, comm_overlap and the
** memory tables are final), inside the same transaction.
*/
#ifndef PROFAN_DERIVE_CORE_H
#define PROFAN_DERIVE_CORE_H

#include <sqlite3.h>
#include <stdint.h>
#include "core/util.h"

/* Replace run runId's core_run_metric rows.  Returns 0, or -1 with pErr
** set ("database: ..."). */
int derive_core_run(sqlite3 *db, int64_t runId, PfError *pErr);

#endif
