-- derive-op-delete-op-run-metric.sql — The calls, signatures and launch
-- counts from the store, the model and roofline metrics from the views, the
-- exposed memcpy time from the spans. Used by src/analysis/derive_op.c,
-- derive_op_store().
DELETE FROM op_run_metric WHERE run_id=?1;
INSERT INTO op_run_metric SELECT * FROM op_metric_roof_calc
