-- op-store-write-calls.sql — Inserts rows into op_gpu_time. Used by
-- src/trace/op_store.c, op_store_write_calls().
INSERT INTO op_gpu_time(op_id, run_id, rank, name_id, device, n_gpu,
  union_ns, sum_ns, host_copies, tf32, sig_id, whole_us)
  VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
