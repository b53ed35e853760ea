-- trace-feed-gpu-mem-op.sql — Reads gpu_mem_op. Used by
-- src/trace/trace_feed.c (its table of statements by name).
SELECT id, file_id, ts, dur, name_id, device, stream, runtime_id, op_id,
  step, kind='memset', direction IS NOT 'DtoD' FROM gpu_mem_op
  WHERE run_id=?1
