/*
** link_trace.h — in-stream linkage of one trace file, in its parser
** thread: CPU op nesting and self time, the op that encloses each runtime
** call, kernel/memcpy -> launching runtime call via the correlation id, and
** step numbers from ProfilerStep#N annotations.
**
** Pipeline position: between "parse" and "load" (normalize).  It relies on
** the order Kineto writes events in: CPU ops sorted by start per thread,
** then runtime calls (sorted per thread) interleaved with the GPU records
** they launch.  Memory is bounded: open ops per thread, a window of GPU
** records waiting for their launch, and a fixed-size cache; op intervals
** and deferred events go to spools (memory up to a budget per linker,
** then temporary files: spool.h).  Whenever an assumption does not
** hold, it says so in LinkStats and the ingest falls back to the database
** sweeps of derive_trace.c for the run.
*/
#ifndef PROFAN_LINK_TRACE_H
#define PROFAN_LINK_TRACE_H

#include <stdint.h>
#include "trace/parse_trace.h"

typedef struct Linker Linker;

/* Emit callback: a row ready to be stored (strings borrowed for the call).
** Returns non-zero to stop. */
typedef int (*LinkEmitFn)(void *ctx, const TraceEvent *e);

typedef struct LinkStats {
  int needCpuSweep;       /* CPU ops out of order: redo nesting in the db */
  int needSteps;          /* a row went out without the step that came
                          ** later, or steps overlap */
  int64_t nRewinds;       /* runtime calls out of order on a thread */
  int64_t nPendingMax;    /* most GPU records waiting for a launch */
  int64_t nHeld;          /* rows that waited in the step hold */
  int64_t nLate;          /* GPU records linked at the end of the file */
  int64_t nIds;           /* the largest sequence numbered (ops or calls) */
} LinkStats;

/* New linker for a file whose op and runtime-call row ids are idBase +
** sequence (trace_ids.h; an op or runtime call fed with a row id keeps
** it).  Free with link_trace_free(). */
Linker *link_trace_new(int64_t idBase, LinkEmitFn xEmit, void *ctx);
void link_trace_free(Linker *p);                    /* accepts NULL */

/* Feed one parsed event (kinds other than TEV_OTHER).  Returns 0, or
** non-zero when the emit callback asked to stop or a temporary file could
** not be written (pErr set). */
int link_trace_event(Linker *p, const TraceEvent *e, PfError *pErr);

/* A ProfilerStep of the file (step number, start, duration), known
** before its events: the stored-rows feeder (trace_relink.c) gives every
** step first.  A step also given by an annotation or op later counts
** once. */
void link_trace_step(Linker *p, int64_t step, int64_t ts, int64_t dur);
/* Every step of the file was given: no row waits for one (no hold). */
void link_trace_steps_given(Linker *p);

/* Emit everything still held.  Returns 0 or non-zero as above. */
int link_trace_finish(Linker *p, PfError *pErr);

const LinkStats *link_trace_stats(const Linker *p);

#endif
