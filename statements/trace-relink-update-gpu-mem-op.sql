-- trace-relink-update-gpu-mem-op.sql — Updates gpu_mem_op. Used by
-- src/trace/trace_relink.c (its table of statements by name).
UPDATE gpu_mem_op SET runtime_id=?2, op_id=?3, step=?4
  WHERE id=?1 AND (runtime_id IS NOT ?2 OR op_id IS NOT ?3
  OR step IS NOT ?4)
