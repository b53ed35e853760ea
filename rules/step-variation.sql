-- name: step-variation
-- description: Step-time variation: coefficient of variation (population
-- description: standard deviation / mean) of each rank's steady steps (view
-- description: step_steady: warm-up and cut steps left out), above
-- description: threshold_pct; a rank needs min_steps steady steps.  One
-- description: finding for the run: the most variable rank.  Steps cut
-- description: at idle gaps (step source 'gap': the trace has no
-- description: ProfilerStep) are guesses, not steps: no finding on them.
-- param: threshold_pct:number>=0 = 10  standard deviation / mean, %
-- param: min_steps:int>=0 = 3       fewer steady steps on a rank: no finding
WITH s AS (
  SELECT rank, count(*) AS n, avg(dur) AS m, avg(1.0 * dur * dur) AS m2
  FROM step_steady WHERE run_id = :run AND steady = 1
    AND source <> 'gap'
  GROUP BY rank
),
v AS (
  SELECT rank, n, 100.0 * sqrt(max(m2 - m * m, 0)) / m AS value
  FROM s WHERE n >= :min_steps AND m > 0
),
w AS (
  SELECT v.*, count(*) OVER () AS nranks,
    sum(value > :threshold_pct) OVER () AS nover
  FROM v
)
SELECT 'medium' AS severity, 'step-variation' AS rule,
  printf('step time varies by %.1f %% on rank %d (standard deviation / mean'
         || ' of %d steady steps)%s', value, rank, n,
         CASE WHEN nranks > 1 THEN printf('; %d of %d ranks above %g %%',
                                          nover, nranks, :threshold_pct)
              ELSE '' END) AS message,
  round(value, 2) AS value, :threshold_pct AS threshold,
  'dynamic shapes, data-loading stalls, allocator churn' AS hint
FROM w WHERE value > :threshold_pct
ORDER BY value DESC, rank LIMIT 1;
