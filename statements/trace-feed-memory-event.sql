-- trace-feed-memory-event.sql — Reads memory_event: the events of the
-- profiler memory series (CUDA ones with a total; the writer keeps the
-- same, src/trace/load_trace.c after_row).  Used by src/trace/trace_feed.c
-- (its table of statements by name); read over the run's rowid range
-- (run_rowid_range, schema 110).
SELECT id, file_id, ts, 0, 0, total_allocated FROM memory_event
WHERE id BETWEEN ?2 AND ?3 AND +run_id=?1 AND device_type=1
  AND total_allocated IS NOT NULL
