/*
** trace_row.h — one stored trace row as the writer's totals and kept
** intervals see it: the values its columns got (a NULL column as 0, or
** -1 where 0 is a value), whoever gives it.
**
** Two feeders give rows to the same code (trace_keep.h): the trace writer
** (load_trace.c) as it inserts each row, and the stored-rows feeder
** (trace_feed.c) reading a run's rows back from the database.
**
** Pipeline position: "load"; a type only.
*/
#ifndef PROFAN_TRACE_ROW_H
#define PROFAN_TRACE_ROW_H

#include <stdint.h>
#include "trace/parse_trace.h"

typedef struct TraceRow {
  TraceEventKind kind;   /* TEV_KERNEL, TEV_MEMCPY, TEV_MEMSET, TEV_CPU_OP,
                         ** TEV_RUNTIME, TEV_DRIVER, TEV_MEMORY (a CUDA
                         ** [memory] event with a total: the memory
                         ** series' only) */
  int64_t fileId;
  int64_t id;            /* the row's id */
  int64_t ts, dur;
  int64_t nameId;
  const char *zName;     /* kernels, and cpu_op from the writer: the name
                         ** (nName bytes), borrowed; else NULL */
  int64_t nName;
  int64_t tid;           /* CPU rows: tid (NULL: 0) */
  int64_t device;        /* GPU rows: device, when hasDevice */
  int hasDevice;
  int64_t stream;        /* GPU rows: stream (NULL: 0) */
  /* linkage (0: NULL; step -1: NULL) */
  int64_t parentId, opId, topOpId, runtimeId, step;
  int64_t launchStep;    /* GPU rows: the step of the launch call while the
                         ** row's own step is set (-1: NULL, no launch, or
                         ** the row has no step), as
                         ** tests/oracle/step_bound.sql reads it */
  int linked;            /* cpu_op: depth and self_dur are set; call:
                         ** in_recompute is set */
  int depth;             /* cpu_op */
  int64_t selfDur;       /* cpu_op */
  int inRecompute;       /* call */
  /* cpu_op */
  int64_t dimsId, typesId, concId;    /* string ids, 0: NULL */
  double flops;
  int flopsSrc;          /* 0 none, 1 "arg", 2 "estimate" */
  /* memcpy */
  int host;              /* a memcpy whose direction is not DtoD */
  /* memory */
  int64_t total;         /* total_allocated */
} TraceRow;

#endif
