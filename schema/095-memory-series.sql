-- 095-memory-series.sql — what memory-timeline's profiler part computed
-- with window functions over every [memory] event of a run is stored once
-- per run by the derive pass (statements/memory-series.sql, run by
-- src/analysis/derive_run.c), issue 35: memory-timeline took 4.48 s
-- of CPU on the synthetic-memory bench shape x10 (810,000 events), most
-- of it numbering each rank's events in a window at query time.  The
-- query reads these rows by their (run_id, rank, ...) keys; the former
-- definitions are tests/oracle/memory_timeline.sql, which
-- test_trace_queries.StoredMemorySeries compares the query with.

-- The profiler's CUDA [memory] events of a rank that carry a total, in
-- (ts, id) order, numbered from 0 (alloc_event's idx for the trace); the
-- allocated total for the slice maxima, the rest read from memory_event
-- by event_id for the few rows shown (a narrower row: 36 -> about 22
-- bytes an event).
CREATE TABLE memory_point(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  i INTEGER NOT NULL,              -- 0, 1, ... in (ts, memory_event.id) order
  total_allocated INTEGER NOT NULL,
  event_id INTEGER NOT NULL,       -- memory_event.id
  PRIMARY KEY(run_id, rank, i)
) WITHOUT ROWID;

-- The last of those events at or before the end of each step of a rank
-- (a step that ends before every event has no row).
CREATE TABLE memory_step_end(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  step INTEGER NOT NULL,
  event_id INTEGER NOT NULL,       -- memory_event.id
  PRIMARY KEY(run_id, rank, step)
) WITHOUT ROWID;

INSERT INTO table_role(name, role, input_kind, summary, description) VALUES
  ('memory_point', 'derived_run', NULL, 0,
   'profiler CUDA memory totals per rank, numbered in time order'),
  ('memory_step_end', 'derived_run', NULL, 0,
   'the last profiler memory event of each step per rank');

-- The runs of a database made before 071: the same rows as
-- statements/memory-series.sql writes (an empty database: nothing).
INSERT INTO memory_point(run_id, rank, i, total_allocated, event_id)
SELECT run_id, rank,
  row_number() OVER (PARTITION BY run_id, rank ORDER BY ts, id) - 1,
  total_allocated, id
FROM memory_event
WHERE device_type = 1 AND total_allocated IS NOT NULL
ORDER BY run_id, rank, ts, id;
INSERT INTO memory_step_end(run_id, rank, step, event_id)
SELECT run_id, rank, step, event_id FROM (
  SELECT s.run_id, s.rank, s.step,
    (SELECT m.id FROM memory_event m
     WHERE m.run_id = s.run_id AND m.rank = s.rank AND m.ts <= s.ts + s.dur
       AND m.device_type = 1 AND m.total_allocated IS NOT NULL
     ORDER BY m.ts DESC, m.id DESC LIMIT 1) AS event_id
  FROM step s)
WHERE event_id IS NOT NULL;
