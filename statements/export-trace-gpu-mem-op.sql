-- export-trace-gpu-mem-op.sql — the gpu_mem_op rows of the exported ranks
-- and window, for the Chrome trace, in the order of the columns its row_*()
-- reads. Used by src/report/export_trace.c (aSource, by name).
SELECT x.device, x.stream, x.ts, x.dur, n.text, x.kind, x.correlation,
  x.external_id, x.bytes, x.gbps, r.pid, r.tid, r.ts, r.dur
  FROM gpu_mem_op x
  LEFT JOIN runtime_call r ON r.id = x.runtime_id
  JOIN string n ON n.id = x.name_id
  WHERE x.run_id = ?1 AND x.rank = ?2 AND x.ts < ?4 AND x.ts + max(x.dur, 1)
    > ?3
