-- name: run-metrics
-- description: Every metric of one run from the run_metric view (step
-- description: time, GPU utilization, category shares, communication,
-- description: memory), the values `profan trend` and `profan check` use.
-- param: like:text = %        only metrics matching this LIKE pattern
-- column: metric         metric name
-- column: value:metric   its value (the unit its name ends with)
SELECT metric, round(value, 4) AS value
FROM run_metric
WHERE run_id = :run AND metric LIKE :like
ORDER BY metric LIKE 'cat\_%' ESCAPE '\', metric;
