-- trace-relink-update-kernel.sql — Updates kernel. Used by
-- src/trace/trace_relink.c (its table of statements by name).
UPDATE kernel SET runtime_id=?2, op_id=?3, step=?4
  WHERE id=?1 AND (runtime_id IS NOT ?2 OR op_id IS NOT ?3
  OR step IS NOT ?4)
