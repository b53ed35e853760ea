/*
** trace_spans.h — the activity intervals of a run's trace rows, kept in
** memory while the rows are loaded, for the GPU and wall-time sweeps.
**
** Pipeline position: filled by the writer (load_trace.c) as rows go in,
** fixed up with each file's final rank and time shift (ingest.c), read by
** derive_trace.c's sweeps, which otherwise read the rows back from the
** database in time order (two index builds and a sort: on the 10x bench
** trace 0.27 s of the ingest's 2 s).  Memory: 32 bytes per GPU row and 16
** per runtime call and top-level CPU op, up to a cap (32 MiB: traces up to
** about 35x the bench trace, 1.1 GB); past the cap, or when a row's nesting
** is not known in-stream, or an id does not fit the compact record, the
** store gives up, frees what it holds and the sweeps read the database.
*/
#ifndef PROFAN_TRACE_SPANS_H
#define PROFAN_TRACE_SPANS_H

#include <stddef.h>
#include <stdint.h>

/* Default cap on the bytes held (PROFAN_SPANS_KB overrides it in KiB; 0
** turns the store off). */
#define TRACE_SPANS_MAX_MB 32

/* kind of a GPU span */
enum { SPAN_KERNEL, SPAN_MEMCPY, SPAN_MEMSET };
/* class of a CPU-side span */
enum { SPAN_RUNTIME, SPAN_CPU, SPAN_NCPU };

typedef struct SpanGpu {
  int64_t ts, dur;
  int32_t device;        /* -1 when the row has none */
  int32_t name;          /* string.id */
  int32_t kind;          /* SPAN_KERNEL, SPAN_MEMCPY, SPAN_MEMSET */
  int32_t seq;           /* arrival order, for a stable sort */
} SpanGpu;

typedef struct Span { int64_t ts, end; } Span;

typedef struct TraceSpans TraceSpans;

/* A new store holding at most TRACE_SPANS_MAX_MB MiB (PROFAN_SPANS_KB), or
** NULL when the store is turned off (PROFAN_SPANS_KB=0 or PROFAN_SWEEP=db).
** Caller frees it with trace_spans_free(). */
TraceSpans *trace_spans_new(void);
void trace_spans_free(TraceSpans *p);             /* accepts NULL */

/* Add one row of file fileId (no-ops once the store gave up). */
void trace_spans_gpu(TraceSpans *p, int64_t fileId, int kind, int64_t ts,
                     int64_t dur, int64_t device, int64_t name);
void trace_spans_cpu(TraceSpans *p, int64_t fileId, int cls, int64_t ts,
                     int64_t dur);

/* The operator calls the writer keeps beside the spans (op_store.c), or
** NULL; owned by p (created and freed with it, not given up with it). */
struct OpStore *trace_spans_ops(const TraceSpans *p);

/* Give up: free everything; the sweeps will read the database. */
void trace_spans_give_up(TraceSpans *p);

/* 1 when every row went in (the store did not give up). */
int trace_spans_usable(const TraceSpans *p);

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

/* Sort a by start (a no-op when it is in order already). */
void trace_spans_sort(Span *a, size_t n);

/*
** The rows the HTA critical-path pass reads (derive_hta.c), kept beside
** the spans with their own cap (TRACE_SPANS_HTA_MAX_MB; past it only
** this part gives up and that pass reads the database): top-level CPU ops
** and every runtime call (48 bytes each), GPU rows (64 bytes), with the
** values their columns got (a NULL column as 0, as sqlite3_column_int64
** reads it).  ts is moved with the file's rows (trace_spans_file_done).
*/
#define TRACE_SPANS_HTA_MAX_MB 32

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

/* 1 when every HTA row of the run went in and every file has its final
** rank (the kept rows are the database's: derive_hta.c, derive_comm.c). */
int trace_spans_hta_usable(const TraceSpans *p);

/* File i's HTA rows and final rank (borrowed: valid until the store is
** freed); 0 when there is no file i, -1 when file i has no rank yet (its
** rows are not the database's: skip it), else 1. */
int trace_spans_hta_file(const TraceSpans *p, int i, int64_t *pRank,
                         const SpanHtaCpu **paCpu, size_t *pnCpu,
                         const SpanHtaGpu **paGpu, size_t *pnGpu);

#endif
