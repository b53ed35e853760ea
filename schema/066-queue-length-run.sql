-- 066-queue-length-run.sql — hta_queue_length (060) read every run's GPU
-- ops for any one run: its launch entries were a GROUP BY over
-- hta_gpu_op, and SQLite (3.40) pushes no run filter into an aggregate
-- subquery, nor into a CTE used twice.  queue-length took 1.3 s on a
-- 6-kernel run in a 35-run database, export-trace 3.7 s on the A100
-- fixture.  Same rows (every fixture's queue-length output is byte for
-- byte the same), now per run: an entry per (launch call, stream) is the
-- first of its window partition (run_id leads every PARTITION BY, so the
-- filter reaches the kernel_run index), and the +1 / -1 events are one
-- pass over the entries joined to a two-row table.
DROP VIEW hta_queue_length;
CREATE VIEW hta_queue_length AS
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
SELECT run_id, rank, device, stream, ts,
  sum(d) OVER w AS queue_length,
  lead(ts) OVER w AS next_ts,
  queue_full, ops
FROM ev
WINDOW w AS (PARTITION BY run_id, rank, device, stream
             ORDER BY ts, d DESC, row_id ROWS UNBOUNDED PRECEDING);
