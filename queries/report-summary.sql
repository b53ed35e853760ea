-- name: report-summary
-- description: The summary of `profan report`: run, ranks, steps per rank
-- description: (all, and the steady ones the step statistics use), step
-- description: time of the steady steps, GPU utilization, the top coarse categories, memory
-- description: (when the run has snapshots) and communication (when it has
-- description: communication kernels), from the run_metric view.
-- column: item           what the row shows
-- column: value          its value: a number (its unit in the item), or text
WITH m AS (
  SELECT metric, value FROM run_metric WHERE run_id = :run
),
cats AS (
  SELECT substr(metric, 12, length(metric) - 15) AS category, value
  FROM m WHERE metric GLOB 'cat_coarse:*_pct'
  ORDER BY value DESC, category LIMIT 3
),
rows AS (
  SELECT 1 AS ord, 'run' AS item,
    (SELECT id || ' (' || name || ')' FROM run WHERE id = :run) AS value
  UNION ALL
  SELECT 2, 'ranks', (SELECT count(*) FROM (
      SELECT rank FROM step WHERE run_id = :run
      UNION SELECT rank FROM gpu_busy WHERE run_id = :run
      UNION SELECT rank FROM snapshot WHERE run_id = :run
        AND rank IS NOT NULL))
  UNION ALL
  SELECT 3, 'steps', (SELECT CAST(value AS INTEGER) FROM m
                      WHERE metric = 'steps')
  UNION ALL
  SELECT 3.5, 'steady steps', (
    SELECT printf('%d (warm-up %d, cut %d)', sum(reason = ''),
                  sum(reason = 'warm-up'), sum(reason = 'cut'))
    FROM step_steady WHERE run_id = :run
      AND rank = (SELECT min(rank) FROM step WHERE run_id = :run))
  UNION ALL
  SELECT 4, 'step time median ms', (SELECT round(value, 3) FROM m
                                    WHERE metric = 'step_time_median_ms')
  UNION ALL
  SELECT 5, 'GPU utilization %', (SELECT round(value, 1) FROM m
                                  WHERE metric = 'gpu_util_pct')
  UNION ALL
  SELECT 6, 'top categories (coarse)',
    (SELECT group_concat(printf('%s %.1f %%', category, value), ', ')
     FROM cats)
  UNION ALL
  SELECT 7, 'memory peak allocated GiB',
    (SELECT round(value / 1073741824.0, 3) FROM m
     WHERE metric = 'peak_allocated_bytes')
  UNION ALL
  SELECT 8, 'memory reserved GiB (max)',
    (SELECT round(value / 1073741824.0, 3) FROM m
     WHERE metric = 'max_reserved_bytes')
  UNION ALL
  SELECT 9, 'fragmentation %', (SELECT round(value, 1) FROM m
                                WHERE metric = 'fragmentation_pct')
  UNION ALL
  SELECT 10, 'communication %', (SELECT round(value, 1) FROM m
                                 WHERE metric = 'comm_pct')
  UNION ALL
  SELECT 11, 'exposed comm ms per step', (SELECT round(value, 3)
                                          FROM m
                                          WHERE metric = 'exposed_comm_ms')
)
SELECT item, value FROM rows
WHERE value IS NOT NULL OR ord <= 3
ORDER BY ord;
