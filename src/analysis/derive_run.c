/*
** derive_run.c — the derive passes that follow the load of a run, in
** their order: collectives and communication (derive_comm.c), the HTA
** passes (derive_hta.c), the operator model (derive_op.c), the step
** time that bounds the work (derive_step_bound.c), the communication
** inside each step (derive_step_comm.c), the profiler memory series
** (memory/memory_series.c) and the core run
** metrics (derive_core.c, last: it reads what the others store).
**
** Pipeline position: "derive", called inside the transaction by ingest.c
** after the trace and memory passes, and through derive_run_stored() by
** merge.c over a merged run and by `profan rebuild`, so that a new pass
** is added in one place.
*/
#include "analysis/derive_run.h"
#include "analysis/derive_core.h"
#include "analysis/derive_hta.h"
#include "analysis/derive_op.h"
#include "analysis/derive_step_comm.h"
#include "core/db.h"
#include "core/runref.h"
#include "core/table_role.h"
#include "input/load_kinds.h"
#include "memory/memory_series.h"
#include "trace/derive_step_bound.h"
#include "trace/derive_trace.h"
#include "trace/trace_feed.h"
#include "trace/trace_totals.h"

#include <stdio.h>
#include <stdlib.h>

/* Print how long a pass took (wall, and CPU of this thread since *pC1,
** which is reset) when PROFAN_TIMING is set. */
static void timing(const char *zWhat, double t1, double *pC1){
  if( getenv("PROFAN_TIMING") ){
    double c = util_thread_cpu_ms();
    fprintf(stderr, "profan: %-16s%8.1f ms, cpu %8.1f ms\n", zWhat,
            util_now_ms()-t1, c - *pC1);
    *pC1 = c;
  }
}

int derive_run_after_load(sqlite3 *db, int64_t runId, int hasTrace,
                          const TraceSpans *pSpans, PfError *pErr){
  double t1 = util_now_ms(), c1 = util_thread_cpu_ms();
  if( derive_comm_run(db, runId, pSpans, pErr) ) return -1;
  timing("derive comm", t1, &c1);
  if( hasTrace ){
    t1 = util_now_ms();
    if( derive_hta_run(db, runId, pSpans, pErr) ) return -1;
    timing("derive hta", t1, &c1);
    t1 = util_now_ms();
    if( derive_op_run(db, runId, pSpans, pErr) ) return -1;
    timing("derive op", t1, &c1);
    t1 = util_now_ms();
    if( derive_step_bound(db, runId, pSpans, pErr) ) return -1;
    timing("derive step bound", t1, &c1);
    t1 = util_now_ms();
    if( derive_step_comm(db, runId, pSpans, pErr) ) return -1;
    timing("derive step comm", t1, &c1);
  }
  /* a kept row that could not be read back makes every pass above wrong */
  if( trace_spans_check(pSpans, pErr) ) return -1;
  t1 = util_now_ms();
  if( memory_series_run(db, runId, pSpans, pErr) ) return -1;
  timing("derive memory", t1, &c1);
  t1 = util_now_ms();
  if( derive_core_run(db, runId, pErr) ) return -1;
  timing("derive core", t1, &c1);
  return 0;
}

int derive_run_stored(sqlite3 *db, int64_t runId, int eWhat, char **pzNote,
                      PfError *pErr){
  int64_t aN[3], nTrace, nOther;
  char *zNote = NULL;
  int all = eWhat==DERIVE_STORED_ALL;
  TraceTotals *pTot = NULL;
  TraceSpans *pSpans = NULL;
  int rc = -1;
  if( pzNote ) *pzNote = NULL;
  if( table_role_delete_run(db, "derived-tables", all, runId, pErr)
      || runref_files(db, runId, aN, pErr) ){
    return -1;
  }
  nTrace = aN[0];
  nOther = aN[1];
  /* what the trace loader notes while inserting, found in the rows */
  if( nTrace>0 && db_exec_run(db, db_statement("loader-notes"), runId,
                              pErr) ){
    return -1;
  }
  if( nOther>0 && derive_memory_run(db, runId, pErr) ) return -1;
  if( nTrace>0 ){
    /* what the derive passes read of the trace rows: the stored rows fed
    ** to the code the writer feeds while it inserts (trace_feed.h); the
    ** per-rank tables (all) from the writer's totals as an ingest writes
    ** them */
    if( derive_trace_indexes(db, pErr) ) return -1;
    pSpans = trace_spans_new();
    if( all ) pTot = trace_totals_new();
    if( trace_feed_run(db, runId, pTot, pSpans, pErr) ) goto done;
    if( all && (trace_totals_write_gpu(pTot, db, runId, pErr)
                || derive_trace_run(db, runId, pTot, pSpans, &zNote,
                                    pErr)) ){
      goto done;
    }
  }
  rc = derive_run_after_load(db, runId, nTrace>0, pSpans, pErr);
done:
  trace_totals_free(pTot);
  trace_spans_free(pSpans);
  if( rc==0 && pzNote ) *pzNote = zNote; else free(zNote);
  return rc;
}
