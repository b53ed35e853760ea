/*
** load_trace.h — inserts parsed trace events into the trace tables.
**
** Pipeline position: "load".  One TraceLoader per ingest, used only by the
** writer thread; statements are prepared once and reused for every row.
*/
#ifndef PROFAN_LOAD_TRACE_H
#define PROFAN_LOAD_TRACE_H

#include <sqlite3.h>
#include "core/db.h"
#include "core/intern.h"
#include "trace/parse_trace.h"
#include "trace/trace_spans.h"
#include "trace/trace_target.h"

typedef struct TraceLoader TraceLoader;

/* Returns a loader (free with load_trace_free) or NULL with pErr set. */
TraceLoader *load_trace_new(sqlite3 *db, Intern *pIntern, PfError *pErr);
void load_trace_free(TraceLoader *p);                /* accepts NULL */

/* Also keep the intervals of the rows in pSpans (NULL: don't) for the
** derive sweeps; the caller keeps ownership. */
void load_trace_set_spans(TraceLoader *p, TraceSpans *pSpans);

/* Insert one event (kinds other than TEV_OTHER).  ts is taken as final.
** Returns 0, or -1 with pErr set. */
int load_trace_event(TraceLoader *p, const TraceTarget *t,
                     const TraceEvent *e, PfError *pErr);

/* Insert the deviceProperties of a file. */
int load_trace_devices(TraceLoader *p, const TraceTarget *t,
                       const TraceInfo *pInfo, PfError *pErr);

/* The final rank of file fileId, once known (its rows may have gone in
** with a guessed rank and been fixed up since); call after its last row. */
void load_trace_file_rank(TraceLoader *p, int64_t fileId, int64_t rank);

/* Insert the gpu_op_summary rows of run runId (count, total, min and max
** duration per rank, kind and name of the kernel and gpu_mem_op rows
** inserted through p), from totals kept while inserting: call once, after
** load_trace_file_rank() for every file.  Returns 0 or -1 with pErr. */
int load_trace_summary(TraceLoader *p, int64_t runId, PfError *pErr);

/* Insert the rows of the tables of schema/009-query-summaries.sql for
** run runId from totals kept while inserting, unless dbLinks (the
** database redoes some linkage: derive_summary.c computes them from the
** rows instead), PROFAN_SUMMARY=db is set, or some row was not linked the
** way the totals expect.  Call after load_trace_file_rank() for every
** file.  Returns 1 when written, 0 when not, -1 on error (pErr set). */
int load_trace_summaries(TraceLoader *p, int64_t runId, int dbLinks,
                         PfError *pErr);

/* Kernel and gpu_mem_op rows inserted with no step so far. */
int64_t load_trace_gpu_without_step(const TraceLoader *p);

/* Rows inserted so far, all tables together. */
int64_t load_trace_rows(const TraceLoader *p);

/*
** After a file whose baseTimeNanoseconds or rank arrived after its events:
** shift every timestamp of file fileId by dTs and set its rank.  Returns 0
** or -1 with pErr set.
*/
int load_trace_fixup(sqlite3 *db, int64_t fileId, int64_t dTs, int setRank,
                     int64_t rank, PfError *pErr);

#endif
