/*
** derive_op.c — fills the operator model's per-run tables of schema
** 022-op-model-stored.sql from its definitions there: op_gpu_time from the
** view op_call_time_calc (each call's kernel/memset/memcpy union), the
** model of the run's new operator signatures (schema 027: op_sig from
** op_sig_calc, op_sig_model from op_sig_model_calc) and
** op_run_metric from op_metric_calc (GEMM and attention efficiency,
** kernels without a launch, exposed memcpy time).  The SQL is the views';
** this file only names the run they compute (table op_target), so the
** definitions stay in one place and the backfill of older runs in 022 is
** the same code.
**
** Pipeline position: "derive", called by ingest.c after derive_hta_run,
** inside the ingest transaction.  Writes only op_gpu_time, op_sig,
** op_sig_model, op_run_metric and (emptied again) op_target.  Every view
** it reads is scoped to the op_target run (or to the signatures not yet
** modeled), so its cost does not grow with the runs already stored.
*/
#include "derive_op.h"
#include "db.h"

int derive_op_run(sqlite3 *db, int64_t runId, PfError *pErr){
  /* the *_calc views compute the runs of op_target (an outer run_id
  ** filter would not reach their kernel scans); op_gpu_time first:
  ** op_sig_calc and op_metric_calc read it; then the signatures, their
  ** model, and the metrics over it */
  return db_exec_run(db,
      "DELETE FROM op_target;"
      "INSERT INTO op_target VALUES(?1);"
      "DELETE FROM op_gpu_time WHERE run_id=?1;"
      "INSERT INTO op_gpu_time SELECT * FROM op_call_time_calc;"
      "INSERT OR IGNORE INTO op_sig(name_id, dims_id, types_id, conc_id)"
      " SELECT * FROM op_sig_calc;"
      "INSERT INTO op_sig_model SELECT * FROM op_sig_model_calc;"
      "UPDATE op_sig SET modeled=1 WHERE modeled=0;"
      "DELETE FROM op_run_metric WHERE run_id=?1;"
      "INSERT INTO op_run_metric SELECT * FROM op_metric_calc;"
      "DELETE FROM op_target", runId, pErr);
}
