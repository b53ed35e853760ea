-- gpu-rows.sql — the GPU rows of run ?1 as the trace writer counts them
-- for gpu_op_summary (src/trace/trace_totals.c, `profan rebuild`): file,
-- kind (0 kernel, 1 memcpy, 2 memset), name, duration.
SELECT file_id, 0, name_id, dur FROM kernel WHERE run_id = ?1
UNION ALL
SELECT file_id, CASE kind WHEN 'memcpy' THEN 1 ELSE 2 END, name_id, dur
FROM gpu_mem_op WHERE run_id = ?1;
