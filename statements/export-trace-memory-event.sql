-- export-trace-memory-event.sql — the memory_event rows of the exported
-- ranks and window, for the Chrome trace, in the order of the columns its
-- row_*() reads. Used by src/report/export_trace.c (aSource, by name).
SELECT x.ts, x.name, x.device_type, x.device, x.addr, x.bytes,
  x.total_allocated, x.total_reserved
  FROM memory_event x
  WHERE x.run_id = ?1 AND x.rank = ?2 AND x.ts >= ?3 AND x.ts < ?4
