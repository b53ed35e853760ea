-- name: trend
-- description: One metric of the run_metric view over the runs, oldest
-- description: first, with the change vs the previous run, a bar of the
-- description: value within the series' range, and the whole series as a
-- description: sparkline on the last row.  `profan trend METRIC`.
-- description: Values are not rounded here: table output formats them by
-- description: the one rule per unit (change_pct one decimal, two
-- description: significant digits below 0.1); CSV and JSON keep them raw.
-- param: metric:text = step_time_median_ms  metric name (see run_metric)
-- param: tag_key:text =       only runs with this tag key ...
-- param: tag_value:text =     ... and this value
-- param: last:int>=1 = 50       only the last N runs of the series
-- column: run_id         run id
-- column: name           run name
-- column: created_at     time of the ingest (UTC)
-- column: value          the metric's value in this run
-- column: change_pct     change vs the previous run of the series, %
-- column: level_bar      (value - min) / (max - min) over the series
-- column: series_spark   the whole series (last row only)
WITH
s AS (
  SELECT r.id AS run_id, r.name, r.created_at, m.value
  FROM run r JOIN run_metric m ON m.run_id = r.id AND m.metric = :metric
  WHERE :tag_key IS NULL OR EXISTS (
    SELECT 1 FROM run_tag t WHERE t.run_id = r.id AND t.key = :tag_key
      AND (:tag_value IS NULL OR t.value = :tag_value))
  ORDER BY r.id DESC
  LIMIT :last
),
w AS (
  SELECT s.*,
    lag(value) OVER (ORDER BY run_id) AS prev,
    min(value) OVER () AS lo, max(value) OVER () AS hi,
    row_number() OVER (ORDER BY run_id DESC) AS back
  FROM s
)
SELECT run_id, name, created_at, value,
  CASE WHEN prev <> 0 THEN 100.0 * (value - prev) / abs(prev) END
    AS change_pct,
  CASE WHEN hi > lo THEN round((value - lo) / (hi - lo), 3) ELSE 0.5 END
    AS level_bar,
  CASE WHEN back = 1 THEN
    (SELECT group_concat(v, ',') FROM
       (SELECT round(value, 6) AS v FROM s ORDER BY run_id))
  END AS series_spark
FROM w
ORDER BY run_id;
