/*
** derive_step_comm.h — the communication inside each step of a run
** (table step_comm, schema/093-step-comm.sql): communication kernel time
** and its part with no compute kernel running, clipped to the step's
** window (the step time that bounds its work, step.bound_ts/bound_dur).
**
** Pipeline position: "derive", after derive_step_bound (it reads the
** bounds) and before derive_core (exposed_comm_ms reads step_comm).
*/
#ifndef PROFAN_DERIVE_STEP_COMM_H
#define PROFAN_DERIVE_STEP_COMM_H

#include <sqlite3.h>
#include <stdint.h>
#include "core/util.h"
#include "trace/trace_spans.h"

/* Write run runId's step_comm rows (it has none yet: a new run, or
** rebuild/merge emptied them) from the GPU spans the writer kept
** (pSpans, trace_spans.h; NULL: no rows).  Returns 0, or -1 with pErr
** set. */
int derive_step_comm(sqlite3 *db, int64_t runId, const TraceSpans *pSpans,
                     PfError *pErr);

#endif
