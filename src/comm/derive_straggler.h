/*
** derive_straggler.h — the straggler measures of a run's collectives:
** clock offsets (rank_clock), arrivals on the common clock, the time each
** kernel waited for the group's last rank and how much of it no compute
** hid, and what each rank's GPU did before each collective
** (collective_window).  See schema/050-straggler-clock.sql.
**
** Pipeline position: "derive", called by derive_comm.c once the
** collective rows and their sequence numbers are in.
*/
#ifndef PROFAN_DERIVE_STRAGGLER_H
#define PROFAN_DERIVE_STRAGGLER_H

#include <sqlite3.h>
#include <stdint.h>
#include "core/util.h"
#include "trace/trace_spans.h"

/*
** Fill rank_clock and collective_window for run runId.  pSpans: the rows
** kept while loading or fed from the tables (trace_feed.h), not NULL;
** aName (nName, sorted): the name ids of
** the run's communication kernels.  The run's old rows must be gone.
** Returns 0, or -1 with pErr set.
*/
int derive_straggler_run(sqlite3 *db, int64_t runId, const TraceSpans *pSpans,
                         const int64_t *aName, int nName, PfError *pErr);

#endif
