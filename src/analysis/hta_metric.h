/*
** hta_metric.h — the headline numbers of the HTA analyses for one run,
** accumulated rank by rank over the GPU ops derive_hta.c loaded, so that
** hta_metric (and run_metric) read a few stored rows instead of sweeping
** the views over every run.  The definitions are the views' (schema
** 013-hta-analyses.sql): temporal breakdown, host-wait share of stream
** idle time, time-weighted launch queue, time at a full queue (schema
** 060-hta-queue.sql: one queue entry per launch call).
**
** Pipeline position: "derive" (called by derive_hta.c).  No SQL here.
*/
#ifndef PROFAN_HTA_METRIC_H
#define PROFAN_HTA_METRIC_H

#include <stdint.h>
#include "analysis/hta_path.h"

/* Kernel classes of the coarse categories (HpGpu.klass). */
enum { HK_COMPUTE, HK_COMM, HK_MEMORY };

typedef struct HtaTotals {
  int64_t spanNs, idleNs, computeNs, nonComputeNs;   /* temporal */
  int64_t streamIdleNs, hostWaitNs;                  /* idle breakdown */
  double queueMeanSum; int nQueueRank;               /* busiest streams */
  int64_t blockedNs;                                 /* queue >= full */
  int nQueueStream;                                  /* streams with launches */
} HtaTotals;

/* An idle interval of a stream: the gap before op g (prevEnd: the latest
** end of the stream's earlier ops); hostWait: g's launch call started
** after prevEnd (the CPU was late).  The other causes are a threshold on
** the gap (hta_setting 'kernel_wait_ns'), applied when the rows are read
** (view hta_idle_interval) so that an edited threshold holds at once. */
typedef struct HtaIdleRow { const HpGpu *g; int64_t prevEnd; int hostWait; }
  HtaIdleRow;

/* A change of a stream's launch queue: the length from ts on, the limit
** of the call that made it (0: none known) and the ops of that call on
** the stream.  The stream's next change is the next row. */
typedef struct HtaQueueRow { int64_t ts, len, full; int ops; } HtaQueueRow;

/* The quantiles queue-length shows, of a stream's change-point lengths. */
#define HTA_NQUANT 3
extern const double hta_quant[HTA_NQUANT];        /* 0.50, 0.75, 0.95 */

/* One stream of a rank: its rows aIdle[idleLo..idleHi) and
** aQueue[queueLo..queueHi), and over the change points the numbers of
** schema 106's hta_stream: sum and largest length, the lengths at
** positions k, k+1 of the sorted lengths for k = (n-1)*quantile
** (aHasHi 0: k+1 is past the last), area (length x time to the next
** change), t0 (first change), span (last - first), time at length 0
** (hasEmpty 0: never 0), time at the call's limit or more. */
typedef struct HtaStreamRow {
  int64_t device, stream;
  int idleLo, idleHi, queueLo, queueHi;
  int64_t sum, max, aLo[HTA_NQUANT], aHi[HTA_NQUANT];
  int aHasHi[HTA_NQUANT];
  int64_t area, t0, span, emptyNs, blockedNs;
  int hasEmpty;
} HtaStreamRow;

/* The exclusive time of one combination of classes running on a device
** (schema 100, view hta_overlap_piece summed): mask bit 0 compute, 1
** comm, 2 memory (0: idle); ns over pieces between consecutive distinct
** start/end times. */
typedef struct HtaSliceRow { int64_t device, ns; int mask, pieces; }
  HtaSliceRow;

/* The per-row results of one rank's sweeps, stored by derive_hta_series.c
** (schema 106) and derive_hta_overlap.c (schema 100): the caller
** empties the arrays between ranks (n = 0) and frees them
** (hta_series_free). */
typedef struct HtaSeries {
  HtaIdleRow *aIdle; int nIdle, nIdleAlloc;
  HtaQueueRow *aQueue; int nQueue, nQueueAlloc;
  HtaStreamRow *aStream; int nStream, nStreamAlloc;
  HtaSliceRow *aSlice; int nSlice, nSliceAlloc;
  int64_t *aHist; int64_t nHist;         /* scratch: length histogram */
} HtaSeries;
void hta_series_free(HtaSeries *p);

/* Add one rank's GPU ops (sorted by device, stream, start: hta_path_sort)
** to *pT, and mark the launches that found their stream's queue full
** (HpGpu.blocked) for the critical path.  The launch queue has one entry
** per launch call and stream (a CUDA graph launch is one entry): +1 at
** the call's start, -1 when its first op on the stream starts; the
** limit of each entry is its launch call's HpGpu.qFull.  Appends the
** rank's idle intervals, queue changes, one row per stream with either
** and overlap slices (per device, ascending mask) to *pS (NULL: not
** wanted). */
void hta_metric_rank(HpGpu *a, int n, HtaTotals *pT, HtaSeries *pS);

#endif
