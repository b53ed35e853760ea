/*
** derive_summary.h — the per-run summary tables of
** schema/009-query-summaries.sql (cpu_op_summary, cpu_op_shape_summary,
** cpu_op_flops_summary, runtime_summary, step_kernel_summary), which the
** operators, launch-overhead, tflops, checkpoint-recompute, steps and
** diff-ops named queries read instead of the raw rows.
**
** Pipeline position: "derive", the last step of derive_trace_run(), once
** every linkage (op_id, runtime_id, parent_id, in_recompute, step) of the
** run is final: the totals kept of every row (trace_totals.c) written.
*/
#ifndef PROFAN_DERIVE_SUMMARY_H
#define PROFAN_DERIVE_SUMMARY_H

#include <sqlite3.h>
#include <stdint.h>
#include "core/group_map.h"
#include "core/util.h"

/* The value of each summary group (columns of the tables, in order). */
typedef struct OpSum { int64_t calls, totalNs, selfNs, gpuN, gpuNs; } OpSum;
typedef struct ShapeSum { int64_t calls; } ShapeSum;
typedef struct FlopsSum {
  int64_t calls, kCalls, kNs;
  double flops, kFlops;
} FlopsSum;
typedef struct RtSum {
  int64_t calls, totalNs, maxNs;
  int64_t launches, delayNs, maxDelay, nShort, rcN, rcNs;
} RtSum;
typedef struct StepSum { int64_t n, ns; } StepSum;

/* The summary rows of one run, keyed as the tables are. */
typedef struct SummaryTotals {
  GroupMap ops;          /* (rank, name_id, parent_name_id) -> OpSum */
  GroupMap shapes;       /* (rank, name_id, input_dims_id) -> ShapeSum */
  GroupMap flops;        /* (rank, name_id, code in src) -> FlopsSum */
  GroupMap rt;           /* (rank, name_id, code in kind) -> RtSum */
  GroupMap steps;        /* (rank, step) -> StepSum */
  TextCodes src;         /* flops_source texts */
  TextCodes kind;        /* runtime_call.kind texts */
} SummaryTotals;

void derive_summary_totals_init(SummaryTotals *p);
void derive_summary_totals_free(SummaryTotals *p);    /* what p holds, not p */

/* Insert the rows of p for run runId into the five tables.  Returns 0 or
** -1 with pErr set. */
int derive_summary_totals_write(sqlite3 *db, int64_t runId,
                                const SummaryTotals *p, PfError *pErr);

#endif
