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
#include "trace/trace_totals.h"

typedef struct TraceLoader TraceLoader;

/* Returns a loader (free with load_trace_free) or NULL with pErr set. */
TraceLoader *load_trace_new(sqlite3 *db, Intern *pIntern, PfError *pErr);
void load_trace_free(TraceLoader *p);                /* accepts NULL */

/* Also give every row inserted to the totals pTot and the spans pSpans
** (either may be NULL: trace_keep.h); the caller keeps ownership. */
void load_trace_keep(TraceLoader *p, TraceTotals *pTot, TraceSpans *pSpans);

/* Insert one event (kinds other than TEV_OTHER).  ts is taken as final.
** Returns 0, or -1 with pErr set. */
int load_trace_event(TraceLoader *p, const TraceTarget *t,
                     const TraceEvent *e, PfError *pErr);

/* Insert the deviceProperties of a file. */
int load_trace_devices(TraceLoader *p, const TraceTarget *t,
                       const TraceInfo *pInfo, PfError *pErr);

/* Write the rows still held: operator rows (held to go in in id order)
** and memory_event rows (64 go a statement).  Called before anything reads
** or changes the rows of a file (its fix-ups) and after the last file.
** Returns 0, or -1 with pErr set. */
int load_trace_flush(TraceLoader *p, PfError *pErr);

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
