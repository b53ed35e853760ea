-- memory-series-events.sql — a run's CUDA [memory] events with a total,
-- per rank in (ts, id) order: the order of index memory_event_run (no
-- sort).  Read by src/memory/memory_series.c, which numbers them.
SELECT rank, ts, total_allocated, id
FROM memory_event
WHERE run_id=?1 AND device_type=1 AND total_allocated IS NOT NULL
ORDER BY rank, ts, id
