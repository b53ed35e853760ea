/*
** trace_totals.h — the totals kept of every trace row: gpu_op_summary
** (count, total, min, max per rank, kind and name of the GPU rows) and
** the tables of schema/009-query-summaries.sql.
**
** Pipeline position: "load" (fed through trace_keep.h by the writer or
** the stored-rows feeder) and "derive" (derive_trace.c adds the steps
** given after the load and writes the summaries).  The one
** implementation of these numbers (see trace_totals.c).
*/
#ifndef PROFAN_TRACE_TOTALS_H
#define PROFAN_TRACE_TOTALS_H

#include <sqlite3.h>
#include <stdint.h>
#include "trace/trace_row.h"
#include "core/util.h"

typedef struct TraceTotals TraceTotals;

/* New, empty totals; free with trace_totals_free (accepts NULL). */
TraceTotals *trace_totals_new(void);
void trace_totals_free(TraceTotals *p);

/* Before the first row: db is where the files' op and runtime-call id
** ranges are read (trace_ids.h), once per file. */
void trace_totals_begin(TraceTotals *p, sqlite3 *db);

/* One row (kernel, memcpy/memset, cpu_op, runtime or driver call; other
** kinds are ignored). */
void trace_totals_row(TraceTotals *p, const TraceRow *r);

/* The final rank of file fileId, after its last row: ends the file. */
void trace_totals_file_rank(TraceTotals *p, int64_t fileId, int64_t rank);

/* Write the gpu_op_summary rows of run runId.  Returns 0 or -1 with
** pErr. */
int trace_totals_write_gpu(TraceTotals *p, sqlite3 *db, int64_t runId,
                           PfError *pErr);

/* The step column of a kernel or gpu_mem_op row written without a step,
** until derive_trace.c gives it the step holding its own start, or NULL
** (inside the ingest's transaction only).  A row of one byte, as the
** steps 2-127 it gets: written NULL, the row grew when given its step
** and the table's full pages split (6 % of kernel's pages free on a
** trace whose steps all come from gap detection). */
#define TRACE_STEP_PENDING (-1)

/* The i-th run [*pFirst, *pLast] of consecutive rowids of kernel
** (isKernel) or gpu_mem_op rows that came without a step (written with
** TRACE_STEP_PENDING; rows fed again: NULL); 0 past the last. */
int trace_totals_stepless(const TraceTotals *p, int isKernel, int i,
                          int64_t *pFirst, int64_t *pLast);

/* A kernel of rank that came without a step was given step (its own
** start's): its time counts in that step. */
void trace_totals_step_add(TraceTotals *p, int64_t rank, int64_t step,
                           int64_t dur);

/* Write the 009 summary rows of run runId; call once every file has its
** rank and every step is final.  Returns 0, or -1 with pErr set (also
** when a row was not the linker's: see trace_totals.c). */
int trace_totals_write_summaries(TraceTotals *p, sqlite3 *db, int64_t runId,
                                 PfError *pErr);

#endif
