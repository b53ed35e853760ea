-- name: memory-timeline
-- description: Allocated and reserved memory over time: from the snapshot's
-- description: trace replay (source 'snapshot', bucketed into `points`
-- description: slices of the trace) and from the profiler's [memory] events
-- description: when the run has a trace (source 'profiler'); then the value
-- description: at the end of each step (snapshot: END of ProfilerStep# or
-- description: Optimizer.step annotations; profiler: ProfilerStep#N) and a
-- description: leak check: growth at every one of at least 3 step ends.
-- description: The profiler events are numbered per rank and each step's
-- description: last event found at ingest (tables memory_series,
-- description: memory_point, memory_step_end).
-- param: points:int>=1 = 100    slices per source
-- column: section        'point', 'step' or 'leak_check'
-- column: source         'snapshot' (per device) or 'profiler' (per rank)
-- column: device         snapshot: CUDA ordinal; profiler: rank
-- column: step           step: step number (1-based for snapshots)
-- column: event_idx      point/step: last trace entry in the slice
-- column: time_ms        point/step: ms since the source's first event
-- column: allocated_bytes  allocated at the end of the slice / step
-- column: max_allocated_bytes  point: highest allocated in the slice
-- column: reserved_bytes  reserved at the end of the slice / step
-- column: growth_bytes   step: change since the previous step end;
-- column: detail         leak_check: the verdict
WITH s AS (
  SELECT * FROM snapshot WHERE run_id = :run
),
ev AS (
  SELECT e.snapshot_id, e.idx, e.time_us, e.allocated_after,
    e.reserved_after, s.n_events, s.first_time_us,
    CAST(e.idx * :points / max(s.n_events, 1) AS INTEGER) AS slice
  FROM alloc_event e JOIN s ON s.id = e.snapshot_id
),
snap_points AS (
  SELECT 'point' AS section, 'snapshot' AS source, s.device, NULL AS step,
    max(ev.idx) AS event_idx, NULL AS time_ms,
    NULL AS allocated_bytes, max(ev.allocated_after) AS max_allocated_bytes,
    NULL AS reserved_bytes, NULL AS growth_bytes, NULL AS detail,
    s.id AS sid, 1 AS sec, ev.slice AS ord
  FROM ev JOIN s ON s.id = ev.snapshot_id
  GROUP BY s.id, ev.slice
),
snap_points2 AS (
  SELECT p.section, p.source, p.device, p.step, p.event_idx,
    round((e.time_us - s.first_time_us) / 1000.0, 3) AS time_ms,
    e.allocated_after AS allocated_bytes, p.max_allocated_bytes,
    e.reserved_after AS reserved_bytes, NULL AS growth_bytes,
    NULL AS detail, p.sid, p.sec, p.ord
  FROM snap_points p JOIN alloc_event e
    ON e.snapshot_id = p.sid AND e.idx = p.event_idx
  JOIN s ON s.id = p.sid
),
snap_ends AS (
  SELECT a.snapshot_id, a.time_us,
    row_number() OVER (PARTITION BY a.snapshot_id ORDER BY a.time_us) AS step
  FROM memory_annotation a
  WHERE a.snapshot_id IN (SELECT id FROM s) AND a.stage = 'END'
    AND (a.name LIKE 'ProfilerStep#%' OR a.name LIKE 'Optimizer.step%')
),
snap_steps AS (
  SELECT 'step' AS section, 'snapshot' AS source, s.device, se.step,
    e.idx AS event_idx, round((e.time_us - s.first_time_us) / 1000.0, 3)
      AS time_ms,
    e.allocated_after AS allocated_bytes, NULL AS max_allocated_bytes,
    e.reserved_after AS reserved_bytes, s.id AS sid
  FROM snap_ends se JOIN s ON s.id = se.snapshot_id
  JOIN alloc_event e ON e.snapshot_id = se.snapshot_id
    AND e.idx = (SELECT max(e2.idx) FROM alloc_event e2
                 WHERE e2.snapshot_id = se.snapshot_id
                   AND e2.time_us <= se.time_us)
),
-- profiler [memory] instants of CUDA devices, per rank: stored at ingest
-- (schemas 095 and 114: each rank's memory_series row names its range of
-- memory_point, its events in time order, and memory_step_end), read
-- here by their keys (memory_event by id for the rows shown)
pr AS (
  SELECT s.rank, s.point_n AS n, s.point_first AS p0,
    (SELECT e.ts FROM memory_point p JOIN memory_event e ON e.id = p.event_id
     WHERE p.id = s.point_first) AS t0
  FROM memory_series s WHERE s.run_id = :run
),
-- the slices that hold an event: slice k holds the events i with
-- i * points / n = k, i.e. from ceil(k * n / points) up to the next
-- slice's first event - 1; each step goes to the next non-empty slice;
-- event i of a rank is the memory_point row p0 + i
sl(rank, n, t0, p0, slice, lo, hi) AS (
  SELECT rank, n, t0, p0, 0, 0, (n + :points - 1) / :points - 1 FROM pr
  UNION ALL
  SELECT rank, n, t0, p0, (hi + 1) * :points / n, hi + 1,
    (((hi + 1) * :points / n + 1) * n + :points - 1) / :points - 1
  FROM sl WHERE hi + 1 < n
),
prof_points2 AS (
  SELECT 'point' AS section, 'profiler' AS source, sl.rank AS device, NULL,
    NULL, round((me.ts - sl.t0) / 1e6, 3), m.total_allocated,
    (SELECT max(x.total_allocated) FROM memory_point x
     WHERE x.id BETWEEN sl.p0 + sl.lo AND sl.p0 + sl.hi),
    me.total_reserved, NULL, NULL, -1 - sl.rank, 1, sl.slice
  FROM sl JOIN memory_point m ON m.id = sl.p0 + sl.hi
  JOIN memory_event me ON me.id = m.event_id
),
prof_steps AS (
  SELECT 'step' AS section, 'profiler' AS source, e.rank AS device,
    e.step, NULL AS event_idx,
    round((me.ts - pr.t0) / 1e6, 3) AS time_ms,
    me.total_allocated AS allocated_bytes, NULL AS max_allocated_bytes,
    me.total_reserved AS reserved_bytes, -1 - e.rank AS sid
  FROM pr JOIN memory_step_end e ON e.run_id = :run AND e.rank = pr.rank
  JOIN memory_event me ON me.id = e.event_id
),
steps AS (
  SELECT x.*, x.allocated_bytes - lag(x.allocated_bytes)
    OVER (PARTITION BY x.sid ORDER BY x.step) AS growth_bytes
  FROM (SELECT * FROM snap_steps UNION ALL SELECT * FROM prof_steps) x
),
leak AS (
  SELECT 'leak_check', source, device, NULL, NULL, NULL,
    NULL, NULL, NULL,
    sum(growth_bytes),
    CASE WHEN count(*) < 3 THEN
           printf('%d step end(s): need at least 3 to tell', count(*))
         WHEN min(growth_bytes) > 0 THEN
           printf('LEAK SUSPECTED: allocated grew at each of %d step ends,'
                  || ' %d bytes per step on average', count(*),
                  sum(growth_bytes) / (count(*) - 1))
         ELSE 'no monotonic growth across steps' END,
    sid, 3, 0
  FROM steps GROUP BY sid
)
SELECT section, source, device, step, event_idx, time_ms, allocated_bytes,
  max_allocated_bytes, reserved_bytes, growth_bytes, detail
FROM (SELECT * FROM snap_points2 UNION ALL SELECT * FROM prof_points2
      UNION ALL SELECT section, source, device, step, event_idx, time_ms,
        allocated_bytes, max_allocated_bytes, reserved_bytes, growth_bytes,
        NULL, sid, 2, step FROM steps
      UNION ALL SELECT * FROM leak)
ORDER BY sid DESC, sec, ord;
