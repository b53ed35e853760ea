-- memory-series-events.sql — a run's CUDA [memory] events with a total,
-- per rank in (ts, id) order: read over the run's rowid range of
-- memory_event (?2..?3, run_rowid_range, schema 110) and sorted once.
-- Read by src/memory/memory_series.c, which numbers them.
SELECT rank, ts, total_allocated, id
FROM memory_event
WHERE id BETWEEN ?2 AND ?3 AND +run_id=?1 AND device_type=1
  AND total_allocated IS NOT NULL
ORDER BY rank, ts, id
