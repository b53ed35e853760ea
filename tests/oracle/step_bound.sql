-- step_bound.sql — the specification of step.bound_ts, bound_dur and
-- bound_by, the step time that bounds the work (schema 040 and 092,
-- sections of schema/001-baseline.sql, say why): per rank, over the
-- steps in time order, the GPU work a step launched (the kernels and
-- memcpys / memsets whose launch call lies in the step), the running end
-- and the start.  profan computes these columns one way, in C, in the
-- derive pass (src/analysis/derive_step_bound.c);
-- tests/e2e/test_step_bound.py clears them, runs this UPDATE with the
-- stock SQLite over the ingested rows of every fixture with steps, and
-- compares.
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
