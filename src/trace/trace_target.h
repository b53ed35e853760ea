/*
** trace_target.h — where the rows of one trace file go (run, file, rank):
** the type the trace writer (load_trace.c) shares with what it feeds
** (trace_totals.c).
**
** Pipeline position: "load"; a type only.
*/
#ifndef PROFAN_TRACE_TARGET_H
#define PROFAN_TRACE_TARGET_H

#include <stdint.h>

/* Where the rows of one file go. */
typedef struct TraceTarget {
  int64_t runId;
  int64_t fileId;
  int64_t rank;
} TraceTarget;

#endif
