/*
** trace_spans.h — what the derive passes need of a run's trace rows,
** kept as the rows come: the activity intervals of the GPU and wall-time
** sweeps, the rows of the HTA critical-path pass and the collectives,
** and (owned here) the operator calls of op_store.h.
**
** Pipeline position: filled through trace_keep.h by the writer
** (load_trace.c) as rows go in, or by the stored-rows feeder
** (trace_feed.c); fixed up with each file's final rank and time shift;
** read by derive_trace.c's sweeps, derive_comm.c, derive_hta.c,
** derive_op.c, derive_step_bound.c, derive_step_comm.c and
** memory/memory_series.c.  The one input of those passes: none of them
** reads the rows back (that took two index builds and a sort: on the 10x
** bench trace 0.27 s of the ingest's 2 s).  The rows are kept in spools
** (spool.h: memory up to a budget, 16 MiB for the store, then temporary
** files): 40 bytes per GPU row and 16 per runtime call and top-level CPU
** op, the HTA rows (48 bytes per call and top-level op, 64 per GPU row),
** and the memory series' events (24 bytes per CUDA [memory] event with a
** total); in memory, 40 bytes per (file, step) that launched GPU work
** (StepGpu).  A reader gathers one rank's rows into memory at a time
** (the HTA pass: the run's).
*/
#ifndef PROFAN_TRACE_SPANS_H
#define PROFAN_TRACE_SPANS_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>
#include "trace/trace_row.h"
#include "core/util.h"

/* kind of a GPU span */
enum { SPAN_KERNEL, SPAN_MEMCPY, SPAN_MEMSET };
/* class of a CPU-side span: runtime calls, top-level CPU ops, and the
** host's own work (SPAN_HOST: the CPU ops of depth 0 and 1, the ops of a
** file the linker did not nest, that are neither a ProfilerStep#N range
** nor a host collective of comm_cpu_pattern: derive_comm.c's windows of
** gloo / MPI collectives take their union) */
enum { SPAN_RUNTIME, SPAN_CPU, SPAN_HOST, SPAN_NCPU };

typedef struct SpanGpu {
  int64_t ts, dur;
  int64_t device;        /* -1 when the row has none */
  int64_t name;          /* string.id */
  int32_t kind;          /* SPAN_KERNEL, SPAN_MEMCPY, SPAN_MEMSET */
  int32_t seq;           /* arrival order, for a stable sort */
} SpanGpu;

typedef struct Span { int64_t ts, end; } Span;

/* A CUDA [memory] event with a total (the memory series,
** memory/memory_series.c): 24 bytes. */
typedef struct SpanMem { int64_t ts, total, id; } SpanMem;

typedef struct TraceSpans TraceSpans;

/* A new, empty store; caller frees it with trace_spans_free(). */
TraceSpans *trace_spans_new(void);
void trace_spans_free(TraceSpans *p);             /* accepts NULL */

/* Before the first row: read the host collective patterns
** (comm_cpu_pattern) that SPAN_HOST leaves out from db.  Accepts NULL. */
void trace_spans_begin(TraceSpans *p, sqlite3 *db);

/* Add one row of file fileId (trace_spans_row does, for every row). */
void trace_spans_gpu(TraceSpans *p, int64_t fileId, int kind, int64_t ts,
                     int64_t dur, int64_t device, int64_t name);
void trace_spans_cpu(TraceSpans *p, int64_t fileId, int cls, int64_t ts,
                     int64_t dur);

/* One row (trace_keep.c): its interval, its HTA row and its operator
** call.  Accepts NULL. */
void trace_spans_row(TraceSpans *p, const TraceRow *r);

/* The operator calls the writer keeps beside the spans (op_store.c), or
** NULL; owned by p (created and freed with it, not given up with it). */
struct OpStore *trace_spans_ops(const TraceSpans *p);

/* A file's rows moved by dTs ns and its final rank (ingest.c's fix-ups). */
void trace_spans_file_done(TraceSpans *p, int64_t fileId, int64_t dTs,
                           int64_t rank);

/* The ranks of files with rows, ascending, distinct, in a new array of *pn
** (caller frees with free()). */
int64_t *trace_spans_ranks(const TraceSpans *p, int *pn);

/* The GPU spans of rank, sorted by (device, ts, longest first, name,
** arrival: the order of derive_trace.c's query on the rows), in a new array
** of *pn (caller frees with free(); NULL when none). */
SpanGpu *trace_spans_rank_gpu(const TraceSpans *p, int64_t rank, size_t *pn);

/* The CPU-side spans of class cls of rank sorted by start, in a new array
** of *pn (caller frees with free(); NULL when none). */
Span *trace_spans_rank_cpu(const TraceSpans *p, int64_t rank, int cls,
                           size_t *pn);

/* The memory series' events of every rank. */
size_t trace_spans_mem_count(const TraceSpans *p);

/* The memory series' events of rank sorted by (ts, id), in a new array
** of *pn (caller frees with free(); NULL when none). */
SpanMem *trace_spans_rank_mem(const TraceSpans *p, int64_t rank, size_t *pn);

/* The span of the GPU work each step launched: the first start g0 and
** last end g1 of the kernels and memcpys / memsets whose launch call lies
** in the step (TraceRow.launchStep), per (rank, step) over the files of
** the rank, time-shifted; for derive_step_bound.c. */
typedef struct StepGpu { int64_t rank, step, g0, g1; } StepGpu;

/* The StepGpu of every (rank, step) that launched GPU work, sorted by
** (rank, step), in a new array of *pn (caller frees with free(); NULL
** when none). */
StepGpu *trace_spans_step_gpu(const TraceSpans *p, size_t *pn);

/* Sort a by start (a no-op when it is in order already). */
void trace_spans_sort(Span *a, size_t n);

/*
** The rows the HTA critical-path pass reads (derive_hta.c), kept beside
** the spans: top-level CPU ops and every runtime call (48 bytes each), GPU
** rows (64 bytes), with the values their columns got (a NULL column as 0,
** as sqlite3_column_int64 reads it).  ts is moved with the file's rows
** (trace_spans_file_done).
*/
typedef struct SpanHtaCpu {
  int64_t tid, ts, end, id, name;
  int32_t isCall;        /* 0: top-level cpu_op, 1: runtime call */
  int32_t outside;       /* runtime call outside every op (op_id NULL) */
} SpanHtaCpu;

typedef struct SpanHtaGpu {
  int64_t device, stream, ts, end, id, name, runtimeId;
  int32_t cls;           /* 0 kernel, 1 memcpy, 2 memset */
  int32_t hasRuntime;    /* runtime_id not NULL */
} SpanHtaGpu;

void trace_spans_hta_cpu(TraceSpans *p, int64_t fileId, const SpanHtaCpu *r);
void trace_spans_hta_gpu(TraceSpans *p, int64_t fileId, const SpanHtaGpu *r);

/* File i's HTA rows (new arrays the caller frees with free(); paCpu or
** paGpu NULL: that side is not copied, its count still set) and final
** rank; 0 when there is no file i, -1 when file i has no rank yet (its
** rows are not the database's: skip it) or cannot be read (see
** trace_spans_check), else 1. */
int trace_spans_hta_file(const TraceSpans *p, int i, int64_t *pRank,
                         SpanHtaCpu **paCpu, size_t *pnCpu,
                         SpanHtaGpu **paGpu, size_t *pnGpu);

/* 0, or -1 with pErr set when a temporary file of the store could not be
** written or read: what the readers got is incomplete.  Accepts NULL. */
int trace_spans_check(const TraceSpans *p, PfError *pErr);

#endif
