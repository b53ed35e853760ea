-- op-store-write-unlaunched.sql — kernel_unlaunched has no row. Used by
-- src/trace/op_store.c, op_store_write_unlaunched().
INSERT INTO op_run_metric(run_id, metric, value)
  VALUES(?1, 'kernels_without_launch', ?2),
  (?1, 'kernels_without_launch_ms', ?3)
