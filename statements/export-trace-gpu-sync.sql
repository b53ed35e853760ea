-- export-trace-gpu-sync.sql — the gpu_sync rows of the exported ranks and
-- window, for the Chrome trace, in the order of the columns its row_*()
-- reads. Used by src/report/export_trace.c (aSource, by name).
SELECT x.device, x.stream, x.ts, x.dur, n.text, x.correlation, x.rank
  FROM gpu_sync x
  JOIN string n ON n.id = x.name_id
  JOIN temp.export_win w ON w.rank = x.rank
  WHERE x.id BETWEEN ?5 AND ?6 AND +x.run_id = ?1 AND x.ts < w.hi AND x.ts +
    max(x.dur, 1) > w.lo
