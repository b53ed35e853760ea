-- memory_timeline.sql — the specification of the profiler rows of the
-- named query memory-timeline: queries/memory-timeline.sql as it was until
-- issue 35, numbering each rank's CUDA [memory] events with window
-- functions at query time.  The query now reads the rows that the derive
-- pass stores (schemas 095 and 114: memory_series, memory_point,
-- memory_step_end; src/memory/memory_series.c);
-- tests/e2e/test_trace_queries.py StoredMemorySeries runs both with the
-- same :run and :points on every fixture with [memory] events and compares
-- every row.
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
-- profiler [memory] instants of CUDA devices, per rank
mem AS (
  SELECT m.rank, m.ts, m.total_allocated, m.total_reserved,
    row_number() OVER (PARTITION BY m.rank ORDER BY m.ts, m.id) - 1 AS i,
    count(*) OVER (PARTITION BY m.rank) AS n,
    min(m.ts) OVER (PARTITION BY m.rank) AS t0
  FROM memory_event m
  WHERE m.run_id = :run AND m.device_type = 1
    AND m.total_allocated IS NOT NULL
),
prof_points AS (
  SELECT 'point' AS section, 'profiler' AS source, rank AS device,
    CAST(i * :points / n AS INTEGER) AS slice, max(i) AS last_i,
    max(total_allocated) AS max_allocated_bytes
  FROM mem GROUP BY rank, slice
),
prof_points2 AS (
  SELECT p.section, p.source, p.device, NULL, NULL,
    round((m.ts - m.t0) / 1e6, 3), m.total_allocated,
    p.max_allocated_bytes, m.total_reserved, NULL, NULL,
    -1 - p.device, 1, p.slice
  FROM prof_points p JOIN mem m ON m.rank = p.device AND m.i = p.last_i
),
-- the last event of each step (events and step ends in one time order:
-- at equal times the event first, as it counts as inside the step);
-- materialized, so that each step is looked up once
prof_marks AS (
  SELECT rank, ts, i, NULL AS step FROM mem
  UNION ALL
  SELECT rank, ts + dur, NULL, step FROM step WHERE run_id = :run
),
prof_step_end AS MATERIALIZED (
  SELECT rank, step, last_i FROM (
    SELECT rank, step, max(i) OVER (PARTITION BY rank ORDER BY ts, i IS NULL
                                    ROWS UNBOUNDED PRECEDING) AS last_i
    FROM prof_marks)
  WHERE step IS NOT NULL
),
prof_steps AS (
  SELECT 'step' AS section, 'profiler' AS source, e.rank AS device,
    e.step, NULL AS event_idx,
    round((m.ts - m.t0) / 1e6, 3) AS time_ms,
    m.total_allocated AS allocated_bytes, NULL AS max_allocated_bytes,
    m.total_reserved AS reserved_bytes, -1 - e.rank AS sid
  FROM prof_step_end e JOIN mem m ON m.rank = e.rank AND m.i = e.last_i
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
