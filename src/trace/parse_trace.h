/*
** parse_trace.h — streaming parser for PyTorch profiler (Kineto) Chrome
** trace JSON, every generation from 2021 to 2026 (docs/formats.md §1).
**
** Pipeline position: "parse".  The parser reads an Input in chunks through
** yajl, never holds the whole trace, and hands each event to a sink
** callback as a TraceEvent whose strings are borrowed until the callback
** returns.  It never prints: problems go to PfError (fatal) or are counted
** as warnings in TraceInfo.
*/
#ifndef PROFAN_PARSE_TRACE_H
#define PROFAN_PARSE_TRACE_H

#include <stdint.h>
#include "core/util.h"
#include "input/input.h"
#include "trace/load_collective.h"

typedef enum {
  TEV_OTHER = 0,     /* anything we do not model (flows, metadata, spans) */
  TEV_KERNEL,
  TEV_MEMCPY,
  TEV_MEMSET,
  TEV_CPU_OP,
  TEV_USER_ANNOTATION,
  TEV_GPU_ANNOTATION,
  TEV_RUNTIME,
  TEV_DRIVER,
  TEV_SYNC,
  TEV_PYTHON,
  TEV_MEMORY,        /* [memory] / [OutOfMemory] instants */
  TEV_N
} TraceEventKind;

/* Bits of TraceEvent.has: which optional fields were present. */
#define TF_CORRELATION   (1u<<0)
#define TF_EXTERNAL_ID   (1u<<1)
#define TF_GRID          (1u<<2)
#define TF_BLOCK         (1u<<3)
#define TF_REGISTERS     (1u<<4)
#define TF_SHARED_MEM    (1u<<5)
#define TF_BLOCKS_PER_SM (1u<<6)
#define TF_WARPS_PER_SM  (1u<<7)
#define TF_OCCUPANCY     (1u<<8)
#define TF_BYTES         (1u<<9)
#define TF_CBID          (1u<<10)
#define TF_SEQUENCE      (1u<<11)
#define TF_FWD_TID       (1u<<12)
#define TF_FLOPS         (1u<<13)
#define TF_DEVICE_TYPE   (1u<<14)
#define TF_DEVICE_ID     (1u<<15)
#define TF_ADDR          (1u<<16)
#define TF_TOTAL_ALLOC   (1u<<17)
#define TF_TOTAL_RESERVED (1u<<18)
#define TF_PYTHON_ID     (1u<<19)
#define TF_PYTHON_PARENT (1u<<20)
#define TF_PID           (1u<<21)
#define TF_TID           (1u<<22)
#define TF_TS            (1u<<23)
#define TF_DUR           (1u<<24)
#define TF_DEVICE        (1u<<25)   /* args.device */
#define TF_STREAM        (1u<<26)   /* args.stream */
#define TF_MEM_GBPS      (1u<<27)   /* memory bandwidth (GB/s) */

typedef struct TraceEvent {
  TraceEventKind kind;
  char ph;                  /* 'X', 'i', 'M', 's', 'f', ... */
  uint32_t has;             /* TF_* bits */
  const char *zName;        /* event name, NUL-terminated, borrowed */
  int nName;
  const char *zCat;         /* category as written, borrowed */
  int64_t pid, tid;         /* numbers; "stream 7" gives 7 */
  int64_t ts;               /* ns in the file's own time base */
  int64_t dur;              /* ns, clamped to >= 0 */
  int64_t offset;           /* byte offset of the event in the input */
  /* args */
  int64_t correlation, external_id, cbid, sequence, fwd_tid;
  int64_t grid[3], block[3];
  int64_t registers, shared_mem, bytes;
  double blocks_per_sm, warps_per_sm, occupancy, flops;
  double mem_gbps;          /* memcpy/memset: Kineto's bandwidth arg */
  int64_t device_type, device_id, addr, total_alloc, total_reserved;
  int64_t python_id, python_parent;
  int64_t device, stream;
  /* raw JSON text of list args (NUL-terminated, "" when absent) */
  const char *zInputDims;
  const char *zInputTypes;
  const char *zConcreteInputs;
  /* Linkage, filled by link_trace.c (0 / -1 = not known). */
  int64_t rowId;            /* explicit row id (cpu_op, runtime_call), or 0 */
  int64_t parentId;         /* cpu_op: enclosing op's rowId, or 0 */
  int64_t selfDur;          /* cpu_op: dur minus direct children */
  int64_t opId;             /* runtime/GPU: innermost enclosing cpu_op */
  int64_t topOpId;          /* runtime: outermost enclosing cpu_op */
  int64_t runtimeId;        /* GPU: launching runtime call */
  int64_t step;             /* ProfilerStep number, -1 if none */
  int depth;                /* cpu_op: nesting depth */
  int inRecompute;          /* runtime: under a checkpoint/recompute op */
  int linked;               /* the fields above are valid */
  /* Collective args (NCCL kernels, record_param_comms), or NULL when the
  ** event carries none.  Borrowed like the strings: whoever keeps an
  ** event copies the CollArgs too. */
  const CollArgs *pColl;
} TraceEvent;

/* One deviceProperties entry. */
typedef struct TraceDevice {
  int64_t id;
  char zName[128];
  int64_t totalGlobalMem;
  int64_t computeMajor, computeMinor, numSms;
} TraceDevice;

/* What the parser learned about the file as a whole. */
typedef struct TraceInfo {
  int hasBaseTime;          /* baseTimeNanoseconds seen */
  int64_t baseTimeNs;
  int baseTimeAfterEvents;  /* it came in the trailer */
  int hasRank;              /* distributedInfo.rank seen */
  int64_t rank;
  int rankAfterEvents;
  int64_t worldSize;        /* -1 when absent */
  int64_t schemaVersion;    /* -1 when absent */
  int sawFractionalTs;      /* some ts had a fraction */
  int64_t maxAbsTs;         /* largest |ts| in ns seen */
  char zHostName[128];
  char zTimeRegime[24];     /* filled by parse_trace at the end */
  int isLegacyArray;        /* top level was an array (old exporter) */
  int nDevices;
  TraceDevice aDevice[64];
  int64_t nEvents;          /* events seen (all phases) */
  int64_t nWarnings;        /* events skipped or repaired */
  char zFirstWarning[256];  /* "OFFSET: message" of the first warning */
} TraceInfo;

/* Sink: called once per event; return 0 to go on, non-zero to stop (the
** parse then fails with the sink's error). */
typedef int (*TraceSinkFn)(void *ctx, const TraceEvent *pEv);

/*
** Parse the whole input.  Returns 0 on success, non-zero with pErr set
** (ERRPOS_BYTE, offset in uncompressed bytes) on bad input or when the sink
** stopped.  pInfo is filled in either case.
*/
int parse_trace(Input *pIn, TraceSinkFn xSink, void *ctx, TraceInfo *pInfo,
                PfError *pErr);

/*
** Convert the decimal text of a JSON number of microseconds to integer
** nanoseconds without going through a double: "1669783687464181" ->
** 1669783687464181000, "4458676522690.655" -> 4458676522690655000 ...
** Returns 0, or -1 when z is not a number that fits.  Digits past the third
** fraction digit are rounded.  *pFrac is set when a fraction was present.
*/
int parse_trace_us_to_ns(const char *z, size_t n, int64_t *pNs, int *pFrac);


#endif
