-- 092-step-bound-launch-step.sql — the step time that bounds the work
-- (040) counts a GPU activity in the step that holds its launch call, by
-- the call's step; 040 read the activity's own step column.
--
-- A GPU row launched outside every step (before the profiled steps, the
-- CPU a queue ahead of the GPU) has no launch step, and the trace derive
-- gives it the step holding its own start (derive_trace.c): 040 counted
-- it as that step's work.  fixtures/hta32 blocked-queue launches 1,045
-- kernels of 100 us before ProfilerStep#1; they run for 104 ms, into the
-- CPU ranges of #1 and #4, and made #1 104.22 ms (its own 18 launches
-- run 1.80 ms on the GPU).  Such a row has no say in any step's bound:
-- a step's GPU work is the rows whose launch call lies in the step.
-- The definition is otherwise 040's; derive_step_bound.c computes it at
-- ingest, and this file is the same in SQL (the readable spec, and for
-- the runs ingested before it).
WITH g AS (
  SELECT run_id, rank, step, min(ts) AS g0, max(ts + dur) AS g1 FROM (
    SELECT x.run_id, x.rank, r.step, x.ts, x.dur FROM kernel x
    JOIN runtime_call r ON r.id = x.runtime_id
    WHERE x.step IS NOT NULL AND r.step IS NOT NULL
    UNION ALL
    SELECT x.run_id, x.rank, r.step, x.ts, x.dur FROM gpu_mem_op x
    JOIN runtime_call r ON r.id = x.runtime_id
    WHERE x.step IS NOT NULL AND r.step IS NOT NULL)
  GROUP BY run_id, rank, step
),
s AS (
  SELECT s.run_id, s.rank, s.step, s.ts AS c, s.ts + s.dur AS e, g.g0,
    row_number() OVER w AS k,
    max(max(s.ts + s.dur, coalesce(g.g1, s.ts + s.dur)))
      OVER (w ROWS UNBOUNDED PRECEDING) AS ee
  FROM step s LEFT JOIN g ON g.run_id = s.run_id AND g.rank = s.rank
    AND g.step = s.step
  WINDOW w AS (PARTITION BY s.run_id, s.rank ORDER BY s.ts, s.step)
),
b AS (
  SELECT run_id, rank, step, c, e, ee,
    CASE WHEN k = 1 THEN CASE WHEN g0 >= e THEN g0 ELSE c END
         ELSE max(c, lag(ee) OVER (PARTITION BY run_id, rank
                                   ORDER BY c, step)) END AS ss
  FROM s
)
UPDATE step SET bound_ts = b.ss, bound_dur = b.ee - b.ss,
  bound_by = CASE WHEN b.ss = b.c AND b.ee = b.e THEN 'cpu' ELSE 'gpu' END
FROM b WHERE b.run_id = step.run_id AND b.rank = step.rank
  AND b.step = step.step;

-- Their stored core metrics again (the step times changed).
DELETE FROM core_run_metric;
INSERT INTO core_target SELECT id FROM run;
INSERT INTO core_run_metric SELECT * FROM run_metric_core_calc;
DELETE FROM core_target;
