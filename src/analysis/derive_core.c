/*
** derive_core.c — fills core_run_metric (schema 026-core-metric-stored.sql)
** from the view run_metric_core_calc: the core per-run metrics (steps and
** steady steps, step time median/p90/mean, GPU busy and use, gpu_ms,
** top_kernel_ms, kernel category shares, comm and exposed comm, memory).
** The SQL is the view's; this file only names the run it computes (table
** core_target), so the definition stays in one place and the backfill of
** older runs in 026 is the same code.
**
** Pipeline position: "derive", called by ingest.c after derive_op_run and
** by merge.c's run_derive, inside their transaction.  Writes only
** core_run_metric and (emptied again) core_target.
*/
#include "analysis/derive_core.h"
#include "core/db.h"

int derive_core_run(sqlite3 *db, int64_t runId, PfError *pErr){
  /* run_metric_core_calc computes the runs of core_target: an outer
  ** run_id filter would not reach its window functions.  Its SELECT is
  ** run as text (db_exec_run_view): one definition still, 7 M
  ** instructions less to compile. */
  return db_exec_run_view(db, db_statement("derive-core-run"),
                          "run_metric_core_calc", runId, pErr);
}
