-- 114-memory-series-compact.sql — the profiler memory series of schema
-- 095 as a rowid table with one row per rank beside it (issue 29's speed
-- point, issue 35's footprint): 095's memory_point repeated its key
-- (run_id, rank, i) on every event in a WITHOUT ROWID table, whose insert
-- searched the key for every row (81,012 rows bound 64 a statement:
-- 3,660 instructions a row, against 2,450 for a rowid table that SQLite
-- numbers at its end; 23 bytes an event, 18.5 MB of the 133 MB database
-- of bench shape synthetic-memory x10).
--
-- The derive pass (src/memory/memory_series.c) writes a run's points at
-- the end of memory_point (SQLite's next rowids, counted and checked),
-- rank after rank in (ts, memory_event.id)
-- order, so a rank's points are one rowid range: memory_series holds its
-- first rowid and its count, and event i of the rank is the row
-- point_first + i.  The view memory_series_point gives the rows by
-- (run_id, rank, i) as 095's table did.  memory_step_end is unchanged.
-- Derived tables: dropped or emptied here, refilled by ingest or
-- `profan rebuild`.

DROP TABLE memory_point;
DELETE FROM memory_step_end;

-- One row per rank with profiler CUDA [memory] events that carry a total.
CREATE TABLE memory_series(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  point_first INTEGER NOT NULL,    -- memory_point rowid of its event 0
  point_n INTEGER NOT NULL,        -- its events: point_first .. + point_n - 1
  PRIMARY KEY(run_id, rank)
) WITHOUT ROWID;

-- One row per such event, in its rank's range of memory_series, in (ts,
-- memory_event.id) order: the allocated total for the slice maxima, the
-- rest read from memory_event by event_id for the few rows shown.
CREATE TABLE memory_point(
  id INTEGER PRIMARY KEY,          -- memory_series.point_first + i
  run_id INTEGER NOT NULL,
  total_allocated INTEGER NOT NULL,
  event_id INTEGER NOT NULL        -- memory_event.id
);

INSERT INTO table_role(name, role, input_kind, summary, description) VALUES
  ('memory_series', 'derived_run', NULL, 0,
   'per rank: where its profiler CUDA memory totals are in memory_point');

UPDATE table_role
SET description = 'profiler CUDA memory totals, each rank''s in time order'
WHERE name = 'memory_point';

-- 095's rows: event i of a rank (0, 1, ... in (ts, memory_event.id) order)
CREATE VIEW memory_series_point AS
SELECT s.run_id, s.rank, p.id - s.point_first AS i, p.total_allocated,
  p.event_id
FROM memory_series s
JOIN memory_point p ON p.id BETWEEN s.point_first
                                AND s.point_first + s.point_n - 1;
