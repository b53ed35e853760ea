-- trace-relink-select-gpu-mem-op.sql — Reads gpu_mem_op. Used by
-- src/trace/trace_relink.c (its table of statements by name).
SELECT m.id, NULL, m.ts, m.dur, '', m.correlation, m.kind
  FROM gpu_mem_op m WHERE m.run_id=?1 AND m.file_id=?2
