-- derive-op-delete-op-target.sql — The calls, signatures and launch counts
-- from the store, the model and roofline metrics from the views, the exposed
-- memcpy time from the spans. Used by src/analysis/derive_op.c,
-- derive_op_store().
DELETE FROM op_target;
INSERT INTO op_target VALUES(?1);
DELETE FROM op_gpu_time WHERE run_id=?1
