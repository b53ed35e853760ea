-- export-trace-memory-event.sql — the memory_event rows of the exported
-- ranks and window, for the Chrome trace, in the order of the columns its
-- row_*() reads. Used by src/report/export_trace.c (aSource, by name).
-- Read over the run's rowid range (?5..?6, run_rowid_range, schema 110)
-- and sorted per rank in (ts, id) order, the order the (run_id, rank, ts)
-- index gave before 110 (the ranks of temp.export_win in ascending order,
-- as export's ranks are).  CROSS JOIN: the range first, each row's
-- window by its rank (the key of export_win), one sort.
SELECT x.ts, x.name, x.device_type, x.device, x.addr, x.bytes,
  x.total_allocated, x.total_reserved, x.rank
  FROM memory_event x
  CROSS JOIN temp.export_win w ON w.rank = x.rank
  WHERE x.id BETWEEN ?5 AND ?6 AND +x.run_id = ?1 AND x.ts >= w.lo
    AND x.ts < w.hi
  ORDER BY x.rank, x.ts, x.id
