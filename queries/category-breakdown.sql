-- name: category-breakdown
-- description: GPU time per kernel category (kernels, memcpy, memset) for
-- description: each rank, with the share of that rank's GPU time.  Categories
-- description: come from category_rule; add rules with SQL to refine them.
-- param: scheme:scheme = detailed   category scheme: 'detailed' or 'coarse' (or yours)
-- param: rank:rank =              only this rank (empty: every rank)
-- param: step:int>=0 =              only this ProfilerStep number (empty: all steps)
-- column: rank               rank the time was measured on
-- column: category           category name in the scheme
-- column: count              kernels and memory operations in the category
-- column: total_ms           GPU time, ms
-- column: pct                share of the rank's GPU time, %
-- column: pct_bar            the share as a bar (table output)
WITH names AS (
  SELECT name_id, category FROM kernel_category WHERE scheme = :scheme
),
per_rank AS (
  SELECT g.rank, n.category, sum(g.n) AS n, sum(g.total_ns) AS ns
  FROM gpu_op_summary g JOIN names n ON n.name_id = g.name_id
  WHERE g.run_id = :run AND :step IS NULL
    AND (:rank IS NULL OR g.rank = :rank)
  GROUP BY g.rank, n.category
  UNION ALL
  SELECT x.rank, n.category, count(*) AS n, sum(x.dur) AS ns
  FROM (SELECT rank, name_id, dur FROM kernel
        WHERE run_id = :run AND step = :step
          AND (:rank IS NULL OR rank = :rank)
        UNION ALL
        SELECT rank, name_id, dur FROM gpu_mem_op
        WHERE run_id = :run AND step = :step
          AND (:rank IS NULL OR rank = :rank)) x
  JOIN names n ON n.name_id = x.name_id
  WHERE :step IS NOT NULL
  GROUP BY x.rank, n.category
)
SELECT rank, category, n AS count,
  round(ns / 1e6, 3) AS total_ms,
  round(100.0 * ns / sum(ns) OVER (PARTITION BY rank), 2) AS pct,
  round(100.0 * ns / sum(ns) OVER (PARTITION BY rank), 2) AS pct_bar
FROM per_rank
ORDER BY rank, ns DESC, category;
