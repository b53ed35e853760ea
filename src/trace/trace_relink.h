/*
** trace_relink.h — the in-stream linker fed from a database: the stored
** rows of one trace file go through link_trace.c again, and their link
** columns are set from what it emits.
**
** This is the seam between the two feeders of the one linkage algorithm
** (CONTRIBUTING.md "One path per number"): the parser feeds link_trace.c
** in file order while a file is read; this feeder reads a file's rows
** back in the order the linker links in one pass (every step first, then
** each thread's ops by start, longest first, then each thread's runtime
** calls by start, then the GPU rows) and writes the columns of the rows
** whose link changed.  It is not a second algorithm: the linker does all
** the linking, this only orders the rows and writes the answers back.
**
** Used by ingest (ingest.c) for a file whose order the stream could not
** link in one pass (LinkStats.needCpuSweep, needSteps: rows went out
** before an op or step that changes them arrived), and by `profan
** rebuild`, which recomputes a run's derived data from its raw rows.
** After it, whatever the writer totalled from the file's rows is stale:
** the caller feeds the run's rows to the totals again (trace_feed.h).
**
** Pipeline position: "link", after the load, inside the ingest's
** transaction; needs the trace indexes (derive_trace_indexes).
*/
#ifndef PROFAN_TRACE_RELINK_H
#define PROFAN_TRACE_RELINK_H

#include <sqlite3.h>
#include <stdint.h>
#include "core/util.h"

/* Link the stored rows of trace file fileId of run runId again and store
** the link columns (cpu_op parent_id, depth, self_dur, step;
** runtime_call op_id, top_op_id, in_recompute, step; kernel and
** gpu_mem_op runtime_id, op_id, step).  *pnChanged (may be NULL) gets the
** number of rows whose columns changed.  Returns 0 or -1 with pErr set. */
int trace_relink_file(sqlite3 *db, int64_t runId, int64_t fileId,
                      int64_t *pnChanged, PfError *pErr);

#endif
