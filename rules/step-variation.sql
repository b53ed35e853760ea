-- name: step-variation
-- description: Step-time variation: coefficient of variation (population
-- description: standard deviation / mean) of the step durations of all
-- description: ranks, above threshold_pct; needs min_steps steps.
-- param: threshold_pct = 10  standard deviation / mean, %
-- param: min_steps = 3       fewer steps: no finding
WITH s AS (
  SELECT count(*) AS n, avg(dur) AS m, avg(1.0 * dur * dur) AS m2
  FROM step WHERE run_id = :run
),
v AS (
  SELECT n, 100.0 * sqrt(max(m2 - m * m, 0)) / m AS value
  FROM s WHERE n >= :min_steps AND m > 0
)
SELECT 'medium' AS severity, 'step-variation' AS rule,
  printf('step time varies by %.1f %% (standard deviation / mean, %d steps)',
         value, n) AS message,
  round(value, 2) AS value, :threshold_pct AS threshold,
  'dynamic shapes, data-loading stalls, allocator churn' AS hint
FROM v WHERE value > :threshold_pct;
