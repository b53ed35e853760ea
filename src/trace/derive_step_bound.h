/*
** derive_step_bound.h — the step time that bounds the work (step.bound_ts,
** bound_dur, bound_by; schema/040-step-time-bound.sql).
**
** Pipeline position: "derive", after the trace derive of a run.
*/
#ifndef PROFAN_DERIVE_STEP_BOUND_H
#define PROFAN_DERIVE_STEP_BOUND_H

#include <sqlite3.h>
#include <stdint.h>
#include "core/util.h"
#include "trace/trace_spans.h"

/* Fill step.bound_ts, bound_dur and bound_by of every step of run runId
** from its CPU steps and the GPU work each step launched (kernels,
** memcpys, memsets by their launch call's step: the spans kept of the
** rows, pSpans, trace_spans_step_gpu).  Returns 0 or -1 with pErr set. */
int derive_step_bound(sqlite3 *db, int64_t runId, const TraceSpans *pSpans,
                      PfError *pErr);

#endif
