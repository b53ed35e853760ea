/*
** trace_totals.h — the totals the trace writer keeps while rows go in:
** gpu_op_summary (count, total, min, max per rank, kind and name of the
** GPU rows) and the tables of schema/009-query-summaries.sql.
**
** Pipeline position: "load"; used only by load_trace.c in the writer
** thread.  derive_summary.c computes the same 009 totals from the rows
** when the database does the linking.
*/
#ifndef PROFAN_TRACE_TOTALS_H
#define PROFAN_TRACE_TOTALS_H

#include <sqlite3.h>
#include <stdint.h>
#include "trace/load_trace.h"
#include "trace/parse_trace.h"
#include "core/util.h"

typedef struct TraceTotals TraceTotals;

/* New, empty totals; free with trace_totals_free (accepts NULL). */
TraceTotals *trace_totals_new(void);
void trace_totals_free(TraceTotals *p);

/* A row just inserted for event e of target t, with name id nameId:
** a kernel (its rowid), a memcpy or memset, a cpu_op (its input-dims id or
** 0, its FLOPs and their source: 0 none, 1 "arg", 2 "estimate"), a
** runtime or driver call. */
void trace_totals_kernel(TraceTotals *p, const TraceTarget *t,
                         const TraceEvent *e, int64_t nameId, int64_t rowid);
void trace_totals_memop(TraceTotals *p, const TraceTarget *t,
                        const TraceEvent *e, int64_t nameId);
void trace_totals_op(TraceTotals *p, const TraceTarget *t,
                     const TraceEvent *e, int64_t nameId, int64_t dimsId,
                     double flops, int64_t src);
void trace_totals_runtime(TraceTotals *p, const TraceTarget *t,
                          const TraceEvent *e, int64_t nameId);

/* The final rank of file fileId, after its last row: ends the file. */
void trace_totals_file_rank(TraceTotals *p, int64_t fileId, int64_t rank);

/* Write the gpu_op_summary rows of run runId.  Returns 0 or -1 with
** pErr. */
int trace_totals_write_gpu(TraceTotals *p, sqlite3 *db, int64_t runId,
                           PfError *pErr);

/* gpu_op_summary of run runId from its kernel and gpu_mem_op rows as
** stored (`profan rebuild`), counted by the writer's own totals and
** written as the writer writes them.  Returns 0 or -1 with pErr. */
int trace_totals_gpu_rows(sqlite3 *db, int64_t runId, PfError *pErr);

/* Write the 009 summary rows of run runId unless dbLinks, PROFAN_SUMMARY=db
** or totals that cannot be trusted (see load_trace_summaries).  Returns 1
** when written, 0 when not, -1 on error (pErr set). */
int trace_totals_write_summaries(TraceTotals *p, sqlite3 *db, int64_t runId,
                                 int dbLinks, PfError *pErr);

#endif
