-- hta_series.sql — the specification of the tables of
-- schema/094-hta-stored-series.sql: each stream's idle intervals, its
-- launch-queue change points and the counts of its kernel sequences, as
-- the window functions over every GPU op that the view
-- hta_idle_interval (001), the view hta_queue_length (060, 066) and the
-- named query kernel-sequences computed at query time until issue 35.
-- profan computes them one way, in C, in the derive pass
-- (src/analysis/hta_metric.c, kernel_seq.c, derive_hta_series.c);
-- tests/e2e/test_oracle.py compares these queries' rows with the
-- tables' on every fixture (format: see summaries.sql).  A GPU row
-- without a device is device 0 in the stored rows.  Since schema 106 the
-- idle intervals and change points are read through the views (the
-- tables keep what cannot be joined); the numbers the named queries
-- idle-breakdown and queue-length show from hta_stream are compared with
-- the window definitions of tests/oracle/queries/ by
-- tests/e2e/test_hta35.py.

-- spec: hta_idle_gap
-- stored: SELECT run_id, rank, device, stream, category, gap_ns, ts, kind, row_id, launch_ts FROM hta_idle_interval
WITH g AS (
  SELECT run_id, rank, device, stream, kind, row_id, ts, runtime_id,
    max(ts + dur) OVER (PARTITION BY run_id, rank, device, stream
                        ORDER BY ts, row_id
                        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
      AS prev_end
  FROM hta_gpu_op
)
SELECT g.run_id, g.rank, coalesce(g.device, 0), g.stream,
  CASE WHEN r.ts > g.prev_end THEN 'host_wait'
       WHEN g.ts - g.prev_end < (SELECT value FROM hta_setting
                                 WHERE name = 'kernel_wait_ns')
         THEN 'kernel_wait'
       ELSE 'other' END,
  g.ts - g.prev_end, g.ts, g.kind, g.row_id, r.ts
FROM g LEFT JOIN runtime_call r ON r.id = g.runtime_id
WHERE g.ts > g.prev_end;

-- spec: hta_queue_point
-- stored: SELECT run_id, rank, device, stream, ts, queue_length, next_ts, queue_full, ops FROM hta_queue_length
WITH g AS (                 -- one entry per (launch call, stream)
  SELECT run_id, rank, device, stream, runtime_id, ts,
    row_number() OVER p AS rn,
    min(row_id) OVER p AS row_id, count(*) OVER p AS ops
  FROM hta_gpu_op WHERE runtime_id IS NOT NULL
  WINDOW p AS (PARTITION BY run_id, rank, device, stream, runtime_id
               ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING
               AND UNBOUNDED FOLLOWING)
),
ev AS (                     -- +1 at the call's start, -1 at the first op
  SELECT g.run_id, g.rank, g.device, g.stream,
    CASE x.d WHEN 1 THEN r.ts ELSE g.ts END AS ts, x.d, g.row_id, g.ops,
    (SELECT q.queue_full FROM hta_queue_limit q
     WHERE s.text GLOB q.pattern ORDER BY q.priority LIMIT 1) AS queue_full
  FROM g JOIN runtime_call r ON r.id = g.runtime_id
  JOIN string s ON s.id = r.name_id
  CROSS JOIN (SELECT 1 AS d UNION ALL SELECT -1) x
  WHERE g.rn = 1
)
SELECT run_id, rank, coalesce(device, 0), stream, ts,
  sum(d) OVER w AS queue_length,
  lead(ts) OVER w AS next_ts,
  queue_full, ops
FROM ev
WINDOW w AS (PARTITION BY run_id, rank, device, stream
             ORDER BY ts, d DESC, row_id ROWS UNBOUNDED PRECEDING);

-- spec: kernel_sequence
-- stored: SELECT run_id, rank, stream, length, seq, n, ns, span_ns FROM kernel_sequence
WITH k AS MATERIALIZED (
  SELECT run_id, rank, device, stream, ts, dur, name_id,
    lead(name_id, 1) OVER w AS n1, lead(name_id, 2) OVER w AS n2,
    lead(name_id, 3) OVER w AS n3, lead(name_id, 4) OVER w AS n4,
    lead(name_id, 5) OVER w AS n5, lead(name_id, 6) OVER w AS n6,
    lead(name_id, 7) OVER w AS n7,
    lead(dur, 1) OVER w AS d1, lead(dur, 2) OVER w AS d2,
    lead(dur, 3) OVER w AS d3, lead(dur, 4) OVER w AS d4,
    lead(dur, 5) OVER w AS d5, lead(dur, 6) OVER w AS d6,
    lead(dur, 7) OVER w AS d7,
    lead(ts + dur, 1) OVER w AS e1, lead(ts + dur, 2) OVER w AS e2,
    lead(ts + dur, 3) OVER w AS e3, lead(ts + dur, 4) OVER w AS e4,
    lead(ts + dur, 5) OVER w AS e5, lead(ts + dur, 6) OVER w AS e6,
    lead(ts + dur, 7) OVER w AS e7
  FROM kernel
  WINDOW w AS (PARTITION BY run_id, rank, device, stream ORDER BY ts, id)
),
occ(run_id, rank, stream, length, seq, ns, span) AS (
  SELECT run_id, rank, stream, 1, CAST(name_id AS TEXT), dur, dur FROM k
  UNION ALL SELECT run_id, rank, stream, 2, name_id || ',' || n1, dur + d1,
    e1 - ts FROM k WHERE n1 IS NOT NULL
  UNION ALL SELECT run_id, rank, stream, 3,
    name_id || ',' || n1 || ',' || n2, dur + d1 + d2, e2 - ts
    FROM k WHERE n2 IS NOT NULL
  UNION ALL SELECT run_id, rank, stream, 4,
    name_id || ',' || n1 || ',' || n2 || ',' || n3,
    dur + d1 + d2 + d3, e3 - ts FROM k WHERE n3 IS NOT NULL
  UNION ALL SELECT run_id, rank, stream, 5,
    name_id || ',' || n1 || ',' || n2 || ',' || n3 || ',' || n4,
    dur + d1 + d2 + d3 + d4, e4 - ts FROM k WHERE n4 IS NOT NULL
  UNION ALL SELECT run_id, rank, stream, 6,
    name_id || ',' || n1 || ',' || n2 || ',' || n3 || ',' || n4 || ',' || n5,
    dur + d1 + d2 + d3 + d4 + d5, e5 - ts FROM k WHERE n5 IS NOT NULL
  UNION ALL SELECT run_id, rank, stream, 7,
    name_id || ',' || n1 || ',' || n2 || ',' || n3 || ',' || n4 || ',' || n5
      || ',' || n6,
    dur + d1 + d2 + d3 + d4 + d5 + d6, e6 - ts FROM k WHERE n6 IS NOT NULL
  UNION ALL SELECT run_id, rank, stream, 8,
    name_id || ',' || n1 || ',' || n2 || ',' || n3 || ',' || n4 || ',' || n5
      || ',' || n6 || ',' || n7,
    dur + d1 + d2 + d3 + d4 + d5 + d6 + d7, e7 - ts FROM k WHERE n7 IS NOT NULL
)
SELECT run_id, rank, stream, length, seq, count(*), sum(ns), sum(span)
FROM occ GROUP BY run_id, rank, stream, length, seq;
