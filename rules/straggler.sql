-- name: straggler
-- description: Straggler ranks: a rank whose mean step time or GPU busy
-- description: time is more than threshold_pct over the mean of the ranks
-- description: (the comparison of the named query rank-skew); one row per
-- description: straggler, value = the larger excess in %.
-- param: threshold_pct = 10  excess over the mean of the ranks, %
WITH st AS (
  SELECT rank, avg(dur) AS ns FROM step WHERE run_id = :run GROUP BY rank
),
bz AS (
  SELECT rank, sum(busy_ns) AS ns FROM gpu_busy
  WHERE run_id = :run GROUP BY rank
),
m AS (
  SELECT (SELECT avg(ns) FROM st) AS st_mean,
    (SELECT count(*) FROM st) AS st_n,
    (SELECT avg(ns) FROM bz) AS bz_mean,
    (SELECT count(*) FROM bz) AS bz_n
),
r AS (
  SELECT rank FROM st UNION SELECT rank FROM bz
),
x AS (
  SELECT r.rank,
    CASE WHEN m.st_n > 1 AND m.st_mean > 0
         THEN 100.0 * (st.ns - m.st_mean) / m.st_mean END AS step_pct,
    CASE WHEN m.bz_n > 1 AND m.bz_mean > 0
         THEN 100.0 * (bz.ns - m.bz_mean) / m.bz_mean END AS busy_pct
  FROM r CROSS JOIN m
  LEFT JOIN st ON st.rank = r.rank
  LEFT JOIN bz ON bz.rank = r.rank
)
SELECT 'high' AS severity, 'straggler' AS rule,
  printf('rank %d: step time %+.1f %%, GPU busy %+.1f %% vs the mean of'
         || ' the ranks', rank, coalesce(step_pct, 0), coalesce(busy_pct, 0))
    AS message,
  round(max(coalesce(step_pct, -1e9), coalesce(busy_pct, -1e9)), 2)
    AS value,
  :threshold_pct AS threshold,
  'look at that rank''s host (data loading, thermal, noisy neighbour);'
  || ' the slowest rank sets the step time' AS hint
FROM x
WHERE step_pct > :threshold_pct OR busy_pct > :threshold_pct
ORDER BY rank;
