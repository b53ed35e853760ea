/*
** hta_path.h — critical path of one step of one rank, in memory: the
** walk back from the step end through CPU program order, launch ->
** GPU op, stream order, inferred cross-stream waits and sync -> GPU op.
** No SQL here: derive_hta.c loads the rows and stores the segments.
**
** Pipeline position: "derive" (called by derive_hta.c).
*/
#ifndef PROFAN_HTA_PATH_H
#define PROFAN_HTA_PATH_H

#include <stdint.h>

/* Segment classes; hta_path_class_name() gives the stored text. */
enum {
  HP_CPU_OP, HP_RUNTIME, HP_LAUNCH, HP_SYNC, HP_KERNEL, HP_MEMCPY,
  HP_MEMSET, HP_IDLE, HP_GPU_WAIT, HP_NCLASS
};
const char *hta_path_class_name(int cls);

/* A CPU event: cpu_op (role HP_CPU_OP) or runtime call (role
** HP_RUNTIME, HP_LAUNCH or HP_SYNC). */
typedef struct HpCpu {
  int64_t rank, tid, ts, end, id, name;
  int role;
} HpCpu;

/* A GPU op (kernel, memcpy, memset) with its launch call when known. */
typedef struct HpGpu {
  int64_t rank, device, stream, ts, end, id, name;
  int cls;                    /* HP_KERNEL, HP_MEMCPY or HP_MEMSET */
  int klass;                  /* 0 compute, 1 comm, 2 memory (hta_metric.h) */
  int hasLaunch;
  int64_t lts, ltid;          /* launch call start and thread */
  int64_t rt;                 /* launch call's runtime_call.id */
  int64_t qFull;              /* its runtime's queue limit (hta_queue_limit);
                              ** 0: none known */
  int blocked;                /* first op of its launch call on the stream,
                              ** and the call found the stream's queue at
                              ** qFull or more (hta_metric_rank sets it) */
} HpGpu;

/* Where a segment comes from (the row it is the time of). */
enum { HP_SRC_NONE, HP_SRC_OP, HP_SRC_RUNTIME, HP_SRC_KERNEL, HP_SRC_MEM };

/* One path segment. */
typedef struct HpSeg {
  int64_t ts, dur;
  int cls;
  int src;                    /* HP_SRC_*; a launch segment names its GPU op */
  int64_t srcId, name, lane;  /* row id, string id, tid or stream */
} HpSeg;

/* Sort CPU events by (rank, tid, start, longest first) and GPU ops by
** (rank, device, stream, start): the order hta_path_rank_init needs. */
void hta_path_sort(HpCpu *aCpu, int nCpu, HpGpu *aGpu, int nGpu);

/* Everything the walk needs about one rank.  hta_path_rank_init takes one
** rank's slices of the sorted arrays (the caller keeps them alive and owns
** them) and builds the indexes; hta_path_rank_free frees only what init
** allocated.  waitNs: a GPU op starting later than this after both its
** stream and its launch were ready waited on another stream. */
typedef struct HpRank HpRank;
HpRank *hta_path_rank_init(const HpCpu *aCpu, int nCpu, const HpGpu *aGpu,
                           int nGpu, int64_t mainTid, int64_t waitNs);
void hta_path_rank_free(HpRank *r);

/* Set the thread a CPU walk starts on (after init, which sorted aCpu). */
void hta_path_rank_set_main(HpRank *r, int64_t mainTid);

/* Critical path of the window [t0, t1]: segments in time order, their
** durations summing to t1 - t0.  startGpu: begin at the last GPU op
** ending by t1 instead of on the main thread.  Returns a heap array the
** caller frees with free(), its length in *pn. */
HpSeg *hta_path_walk(const HpRank *r, int64_t t0, int64_t t1, int startGpu,
                     int *pn);

#endif
