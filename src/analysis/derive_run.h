/*
** derive_run.h — the derive passes that follow the load of a run, in
** their order, for the places that build a run: ingest.c, and over the
** rows already stored, merge.c and `profan rebuild`.
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

/* What derive_run_stored() computes again. */
#define DERIVE_STORED_ACROSS 0  /* the tables derived across ranks (merge) */
#define DERIVE_STORED_ALL    1  /* and those derived per rank (rebuild) */

/* The derived tables of run runId computed again from its stored rows,
** with the ingest's own passes in the ingest's order (the trace sweeps
** read the rows back instead of the spans kept while loading): the run's
** rows of the tables table_role lists as derived_run (eWhat
** DERIVE_STORED_ACROSS: merge, whose shards brought the per-rank ones),
** or also derived_rank (DERIVE_STORED_ALL: rebuild), are deleted first.
** *pzNote (when pzNote is not NULL): a note for the user, or NULL; the
** caller frees it.  Inside the caller's transaction.  Returns 0, or -1
** with pErr set. */
int derive_run_stored(sqlite3 *db, int64_t runId, int eWhat, char **pzNote,
                      PfError *pErr);

#endif
