-- 040-step-time-bound.sql — the step time that bounds the work, and one
-- steady-step rule without the spread-widened tolerance (issue 30).
--
-- A ProfilerStep range is the CPU's step.  When the CPU runs ahead (the
-- GPU works through a queue of launches), the GPU work a step launched
-- ends after the next step began, and the CPU step no longer measures
-- the work: tracelens-mi300-resnet-ckpt's 16 ms CPU steps launch 19 ms of
-- GPU work each, and a 20 % slower GPU changed the CPU steps by 0 %.
-- Per rank, over the steps in time order (c the CPU step's start, e its
-- end, g0 / g1 the first start and the last end of the GPU activity --
-- kernels, memcpys, memsets -- the step launched: rows linked to a launch
-- call; a row without one, e.g. launched before the profiled window, only
-- has the step containing its start):
--   end    E_k = the largest max(e_j, g1_j) of the steps j <= k: the step
--          is over when its CPU part and the GPU work it launched are
--          (and never before an earlier step's);
--   start  S_k = max(c_k, E_k-1): a step starts when the CPU starts it
--          and the previous step's work is done; the first step starts
--          at g0 when its GPU work began only after its CPU part ended
--          (the GPU was still busy with launches from before the
--          profiled window), else at c;
--   step.bound_ts = S_k, step.bound_dur = E_k - S_k, step.bound_by =
--          'cpu' when that is the CPU step (S = c and E = e), 'gpu' when
--          the GPU work moved either end.
-- A CPU that waits for the GPU every step (a loss.item(), a
-- synchronize) keeps its CPU steps (bound_by 'cpu' on hta-diff-control);
-- a GPU tail reaching into the next step makes the step end with it
-- (kineto-resnet50-2021: a few ms); a CPU a step or more ahead gets the
-- GPU's steps (tracelens-mi300: 18.98, 18.98, 18.55 ms).
-- derive_step_bound.c computes these columns at ingest (the writer's
-- derive pass); the UPDATE at the end of this file is the same
-- definition in SQL, for the runs ingested before it.
ALTER TABLE step ADD COLUMN bound_ts INTEGER;   -- S_k, ns
ALTER TABLE step ADD COLUMN bound_dur INTEGER;  -- E_k - S_k, ns
ALTER TABLE step ADD COLUMN bound_by TEXT;      -- 'cpu' or 'gpu'

-- The steady-step rule, one definition (view step_steady; every step
-- statistic, the steps query, the step-variation rule, the report, the
-- HTML and the gate read it).  Per run and rank, over the rank's steps in
-- time order, with M the median of the rank's step times (bound_dur):
--   warm-up: the leading steps before the first step within
--            tolerance_pct of M, at most (n - 1) / 2 of the n steps;
--   cut:     the last step when it is outside tolerance_pct of M;
--   ranks with fewer than min_steps steps keep every step.
-- The tolerance no longer widens with the rank's spread (mad_k, 011):
-- the spread of all steps moved with any later step, so one step 10 %
-- slower made a warm-up step at 75 % of the median steady (issue 30).
-- Only leading steps are ever warm-up, and a change of the later steps
-- moves M by at most the distance between two middle steps.
DELETE FROM steady_param WHERE name = 'mad_k';
UPDATE steady_param SET doc = 'a leading step further than this from the '
  || 'rank''s median step is warm-up, a last one cut, %'
  WHERE name = 'tolerance_pct';

DROP VIEW step_steady;
CREATE VIEW step_steady AS
SELECT run_id, rank, step, ts, dur, source,
  k AS pos,                        -- 1 = the rank's first step in time
  n,                               -- steps of the rank
  median AS median_ns,             -- the rank's median step (all steps)
  dev_pct,                         -- |dur - median| / median, %
  tol_pct,                         -- the tolerance, %
  reason = '' AS steady,           -- 1 steady, 0 warm-up or cut
  reason,                          -- '', 'warm-up' or 'cut'
  cpu_ts, cpu_dur,                 -- the ProfilerStep range (step.ts, dur)
  bound_by                         -- 'cpu' or 'gpu' (step.bound_by)
FROM (
  SELECT *,
    CASE WHEN few THEN ''
         WHEN k < coalesce(k0, 1) AND k <= (n - 1) / 2 THEN 'warm-up'
         WHEN k = n AND dev_pct > tol_pct THEN 'cut'
         ELSE '' END AS reason
  FROM (
    SELECT *,
      min(CASE WHEN dev_pct <= tol_pct THEN k END)
        OVER (PARTITION BY run_id, rank) AS k0
    FROM (
      SELECT *,
        100.0 * abs(dur - median) / max(median, 1) AS dev_pct,
        (SELECT value FROM steady_param WHERE name = 'tolerance_pct')
          AS tol_pct,
        n < (SELECT value FROM steady_param WHERE name = 'min_steps') AS few
      FROM (
        SELECT *,
          avg(CASE WHEN i IN ((n + 1) / 2, (n + 2) / 2) THEN dur END)
            OVER (PARTITION BY run_id, rank) AS median
        FROM (
          SELECT run_id, rank, step,
            coalesce(bound_ts, ts) AS ts, coalesce(bound_dur, dur) AS dur,
            source, ts AS cpu_ts, dur AS cpu_dur,
            coalesce(bound_by, 'cpu') AS bound_by,
            row_number() OVER (PARTITION BY run_id, rank
                               ORDER BY ts, step) AS k,
            row_number() OVER (PARTITION BY run_id, rank
                               ORDER BY coalesce(bound_dur, dur), ts) AS i,
            count(*) OVER (PARTITION BY run_id, rank) AS n
          FROM step
          WHERE NOT EXISTS (SELECT 1 FROM core_target)
             OR run_id IN (SELECT run_id FROM core_target))))));

-- The per-step samples of the step metrics (026's run_step_sample) for
-- every step, with `steady`: 1 when the step is steady on some rank (the
-- value is then the mean over those ranks, else over every rank).  The
-- gate compares the steady steps of two runs, or, when the runs have the
-- same schedule, every step number that is steady in either run, paired:
-- a change of the run cannot turn a step it slowed into warm-up and so
-- out of the comparison; only a step that is warm-up or cut in both runs
-- stays out (README "The regression gate").
DROP VIEW run_step_sample;
CREATE VIEW run_step_sample AS
WITH
names AS (
  SELECT 'step_time_median_ms' AS metric
  UNION ALL SELECT 'step_time_p90_ms'
  UNION ALL SELECT 'step_time_mean_ms'
)
SELECT st.run_id, names.metric, st.step, st.ms AS value, st.steady
FROM (
  SELECT DISTINCT run_id, step,
    coalesce(avg(CASE WHEN steady THEN dur END)
               OVER (PARTITION BY run_id, step),
             avg(dur) OVER (PARTITION BY run_id, step)) / 1e6 AS ms,
    max(steady) OVER (PARTITION BY run_id, step) AS steady
  FROM step_steady
) st CROSS JOIN names
UNION ALL
SELECT run_id, 'step_gpu_busy_pct', step, value, steady
FROM (
  SELECT DISTINCT run_id, step,
    coalesce(avg(CASE WHEN steady THEN pct END)
               OVER (PARTITION BY run_id, step),
             avg(pct) OVER (PARTITION BY run_id, step)) AS value,
    max(steady) OVER (PARTITION BY run_id, step) AS steady
  FROM (
    SELECT DISTINCT s.run_id, s.rank, s.step, s.steady,
      100.0 * sum(CASE WHEN t.class IN ('kernel', 'memcpy', 'memset',
                                        'comm')
                       THEN t.ns ELSE 0 END)
                OVER (PARTITION BY s.run_id, s.rank, s.step)
        / max(sum(t.ns) OVER (PARTITION BY s.run_id, s.rank, s.step), 1)
        AS pct
    FROM step_time t
    JOIN step_steady s ON s.run_id = t.run_id AND s.rank = t.rank
      AND s.step = t.step));

-- The runs ingested before this file: their step times by the same
-- definition (the GPU span of each step's launched activity, then the
-- running end and the start as above).
WITH g AS (
  SELECT run_id, rank, step, min(ts) AS g0, max(ts + dur) AS g1 FROM (
    SELECT run_id, rank, step, ts, dur FROM kernel
    WHERE step IS NOT NULL AND runtime_id IS NOT NULL
    UNION ALL
    SELECT run_id, rank, step, ts, dur FROM gpu_mem_op
    WHERE step IS NOT NULL AND runtime_id IS NOT NULL)
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
