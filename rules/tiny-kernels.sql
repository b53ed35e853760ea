-- name: tiny-kernels
-- description: Many tiny kernels: the share of kernel launches shorter
-- description: than max_us, above threshold_pct (with at least min_count
-- description: such kernels); a sign of launch overhead.  Needs the
-- description: run's evidence (run_evidence).
-- param: max_us:number>=0 = 10         a kernel shorter than this is tiny, µs
-- param: threshold_pct:number>=0 = 50  share of kernel launches, %
-- param: min_count:int>=0 = 100     fewer tiny kernels: no finding
WITH k AS (
  SELECT count(*) AS n, sum(dur < :max_us * 1000) AS tiny
  FROM kernel WHERE run_id = :run
),
v AS (SELECT n, tiny, 100.0 * tiny / n AS value FROM k WHERE n > 0)
SELECT 'medium' AS severity, 'tiny-kernels' AS rule,
  printf('%d of %d kernels (%.1f %%) are shorter than %g us', tiny, n,
         value, :max_us) AS message,
  round(value, 2) AS value, :threshold_pct AS threshold,
  'launch overhead: fusion, CUDA graphs, larger batches' AS hint
FROM v WHERE value > :threshold_pct AND tiny >= :min_count
  AND (SELECT enough FROM run_evidence WHERE run_id = :run);
