-- trace-relink-update-runtime-call.sql — Updates runtime_call. Used by
-- src/trace/trace_relink.c (its table of statements by name).
UPDATE runtime_call SET op_id=?2, top_op_id=?3, in_recompute=?4, step=?5
  WHERE id=?1 AND (op_id IS NOT ?2 OR top_op_id IS NOT ?3
  OR in_recompute IS NOT ?4 OR step IS NOT ?5)
