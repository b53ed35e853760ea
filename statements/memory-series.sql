-- memory-series.sql — a run's profiler memory series (schema 095),
-- emptied and written again by ingest, merge and rebuild: its CUDA
-- [memory] events with a total numbered per rank in (ts, id) order (the
-- order of index memory_event_run: the window needs no sort), and for
-- each step the last of them at or before the step's end (one backward
-- seek in that index per step; at equal times the later id). Used by
-- src/analysis/derive_run.c, derive_memory_series().
DELETE FROM memory_point WHERE run_id=?1;
DELETE FROM memory_step_end WHERE run_id=?1;
INSERT INTO memory_point(run_id, rank, i, total_allocated, event_id)
SELECT run_id, rank,
  row_number() OVER (PARTITION BY rank ORDER BY ts, id) - 1,
  total_allocated, id
FROM memory_event
WHERE run_id=?1 AND device_type=1 AND total_allocated IS NOT NULL
ORDER BY rank, ts, id;
INSERT INTO memory_step_end(run_id, rank, step, event_id)
SELECT ?1, rank, step, event_id FROM (
  SELECT s.rank, s.step,
    (SELECT m.id FROM memory_event m
     WHERE m.run_id=?1 AND m.rank=s.rank AND m.ts <= s.ts + s.dur
       AND m.device_type=1 AND m.total_allocated IS NOT NULL
     ORDER BY m.ts DESC, m.id DESC LIMIT 1) AS event_id
  FROM step s WHERE s.run_id=?1)
WHERE event_id IS NOT NULL
