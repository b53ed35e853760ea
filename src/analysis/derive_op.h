/*
** derive_op.h — the operator model's stored rows of a run (schema
** 022-op-model-stored.sql): each operator call's GPU time as the union of
** what it launched (op_gpu_time) and the model's headline numbers
** (op_run_metric, read by run_metric for trend, check and diff).
**
** Pipeline position: "derive", last pass of an ingest (after the trace
** linkage, kernel.op_id, is final), inside the ingest transaction.
*/
#ifndef PROFAN_DERIVE_OP_H
#define PROFAN_DERIVE_OP_H

#include <sqlite3.h>
#include <stdint.h>
#include "trace/trace_spans.h"
#include "core/util.h"

/* Replace run runId's op_gpu_time and op_run_metric rows (from what the
** writer kept in pSpans' operator store when it is usable, else from the
** views; pSpans may be NULL).  Returns 0, or -1 with pErr set
** ("database: ..."). */
int derive_op_run(sqlite3 *db, int64_t runId, const TraceSpans *pSpans,
                  PfError *pErr);

#endif
