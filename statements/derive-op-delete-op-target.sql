-- derive-op-delete-op-target.sql — The calls, signatures and launch counts
-- from the store, the model and roofline metrics from the views, the exposed
-- memcpy time from the spans. Used by src/analysis/derive_op.c,
-- derive_op_store().  The run's op_gpu_time rows are its cpu_op rowid
-- range (op_id is a cpu_op.id; no run_id index, schema 123); a run
-- without that range has no operators, so no rows to delete.
DELETE FROM op_target;
INSERT INTO op_target VALUES(?1);
DELETE FROM op_gpu_time
WHERE op_id BETWEEN (SELECT lo FROM run_rowid_range
                     WHERE run_id=?1 AND tbl='cpu_op')
                AND (SELECT hi FROM run_rowid_range
                     WHERE run_id=?1 AND tbl='cpu_op')
  AND run_id=?1
