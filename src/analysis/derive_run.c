/*
** derive_run.c — the derive passes that follow the load of a run, in
** their order: collectives and communication (derive_comm.c), the HTA
** passes (derive_hta.c), the operator model (derive_op.c), the step
** time that bounds the work (derive_step_bound.c) and the core run
** metrics (derive_core.c, last: it reads what the others store).
**
** Pipeline position: "derive", called inside the transaction by ingest.c
** after the trace and memory passes, and by merge.c over a merged run,
** so that a new pass is added in one place.
*/
#include "analysis/derive_run.h"
#include "analysis/derive_core.h"
#include "analysis/derive_hta.h"
#include "analysis/derive_op.h"
#include "input/load_kinds.h"
#include "trace/derive_step_bound.h"

#include <stdio.h>
#include <stdlib.h>

/* Print how long a pass took when PROFAN_TIMING is set. */
static void timing(const char *zWhat, double t1){
  if( getenv("PROFAN_TIMING") ){
    fprintf(stderr, "profan: %-16s%8.1f ms\n", zWhat, util_now_ms()-t1);
  }
}

int derive_run_after_load(sqlite3 *db, int64_t runId, int hasTrace,
                          const TraceSpans *pSpans, PfError *pErr){
  double t1 = util_now_ms();
  if( derive_comm_run(db, runId, pSpans, pErr) ) return -1;
  timing("derive comm", t1);
  if( hasTrace ){
    t1 = util_now_ms();
    if( derive_hta_run(db, runId, pSpans, pErr) ) return -1;
    timing("derive hta", t1);
    t1 = util_now_ms();
    if( derive_op_run(db, runId, pSpans, pErr) ) return -1;
    timing("derive op", t1);
    t1 = util_now_ms();
    if( derive_step_bound(db, runId, pErr) ) return -1;
    timing("derive step bound", t1);
  }
  t1 = util_now_ms();
  if( derive_core_run(db, runId, pErr) ) return -1;
  timing("derive core", t1);
  return 0;
}
