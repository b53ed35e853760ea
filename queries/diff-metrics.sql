-- name: diff-metrics
-- description: Every run_metric of a baseline run (:baseline) next to this
-- description: run's (:run) with the change; step time, GPU utilization,
-- description: category shares, communication and memory.
-- description: `profan diff A B` (first section) and `--by memory`.
-- param: baseline:run! =      the baseline run id (profan diff binds it)
-- param: like:text = %        only metrics matching this LIKE pattern
-- param: cats:bool = 0        1: include the cat_* category shares
-- param: memory:bool = 0      1: only the memory metrics (snapshots)
-- column: metric         metric name (see the run_metric view)
-- column: a:metric       value in the baseline run (in the metric's unit)
-- column: b:metric       value in this run
-- column: delta:metric   b - a
-- column: change_pct     (b - a) / |a|, % (NULL when a is 0 or missing)
WITH
ma AS (SELECT metric, value FROM run_metric WHERE run_id = :baseline),
mb AS (SELECT metric, value FROM run_metric WHERE run_id = :run),
m AS (SELECT metric FROM ma UNION SELECT metric FROM mb)
SELECT m.metric,
  round(ma.value, 4) AS a,
  round(mb.value, 4) AS b,
  round(mb.value - ma.value, 4) AS delta,
  CASE WHEN ma.value <> 0
       THEN round(100.0 * (mb.value - ma.value) / abs(ma.value), 2) END
    AS change_pct
FROM m
LEFT JOIN ma ON ma.metric = m.metric
LEFT JOIN mb ON mb.metric = m.metric
WHERE m.metric LIKE :like AND (:cats OR m.metric NOT LIKE 'cat\_%' ESCAPE '\')
  AND (NOT :memory OR m.metric IN ('peak_allocated_bytes', 'reserved_bytes',
       'max_reserved_bytes', 'fragmentation_pct', 'alloc_churn_bytes'))
ORDER BY m.metric LIKE 'cat\_%' ESCAPE '\', m.metric;
