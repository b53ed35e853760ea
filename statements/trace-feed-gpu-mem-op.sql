-- trace-feed-gpu-mem-op.sql — Reads gpu_mem_op. Used by
-- src/trace/trace_feed.c (its table of statements by name).
SELECT g.id, file_id, ts, dur, name_id, device, stream, runtime_id, op_id,
  g.step, CASE WHEN g.step IS NOT NULL
    THEN (SELECT r.step FROM runtime_call r WHERE r.id = g.runtime_id) END,
  kind='memset', direction IS NOT 'DtoD' FROM gpu_mem_op g
  WHERE run_id=?1
