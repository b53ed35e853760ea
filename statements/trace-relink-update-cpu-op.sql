-- trace-relink-update-cpu-op.sql — Updates cpu_op. Used by
-- src/trace/trace_relink.c (its table of statements by name).
UPDATE cpu_op SET parent_id=?2, depth=?3, self_dur=?4, step=?5
  WHERE id=?1 AND (parent_id IS NOT ?2 OR depth IS NOT ?3
  OR self_dur IS NOT ?4 OR step IS NOT ?5)
