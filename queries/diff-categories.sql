-- name: diff-categories
-- description: GPU time per step per kernel category in a baseline run
-- description: (:baseline) and this run (:run): delta and speedup;
-- description: categories under the noise floor in both runs are folded
-- description: into one "(other)" row.  `profan diff A B --by category`.
-- param: baseline:run! =      the baseline run id (profan diff binds it)
-- param: scheme:scheme = detailed  category scheme (detailed, coarse, ...)
-- param: floor_pct:number>=0 = 0.3  fold rows below this % of step time (a_step_pct, b_step_pct) in both runs
-- column: category       category name, or "(other)" with the folded count
-- column: a_ms           baseline GPU time per step, ms
-- column: b_ms           this run's GPU time per step, ms
-- column: delta_ms       b_ms - a_ms
-- column: delta_pct      change relative to a_ms, % (NULL when a_ms is 0)
-- column: speedup        a_ms / b_ms (above 1: faster in :run)
-- column: a_pct          share of the baseline's GPU time, %
-- column: b_pct          share of this run's GPU time, %
-- column: a_step_pct     a_ms as % of the baseline's step time: the longest of its mean CPU step, the GPU-side span of its GPU work per step and its GPU time per step summed over streams (view step_share), so never above 100
-- column: b_step_pct     b_ms as % of this run's step time (the same)
WITH
-- steps, and the step time shares are of (view step_share, schema 067)
sa AS (SELECT steps AS n, step_ns AS dur FROM step_share
       WHERE run_id = :baseline),
sb AS (SELECT steps AS n, step_ns AS dur FROM step_share
       WHERE run_id = :run),
ta AS (SELECT sum(total_ns) AS ns FROM gpu_op_summary
       WHERE run_id = :baseline),
tb AS (SELECT sum(total_ns) AS ns FROM gpu_op_summary WHERE run_id = :run),
-- GPU time per kernel name first: the category (a rule lookup per row
-- of the view) is then looked up once per name, not once per rank
ga AS MATERIALIZED (SELECT name_id, sum(total_ns) AS ns FROM gpu_op_summary
       WHERE run_id = :baseline GROUP BY name_id),
gb AS MATERIALIZED (SELECT name_id, sum(total_ns) AS ns FROM gpu_op_summary
       WHERE run_id = :run GROUP BY name_id),
ca AS (SELECT c.category, sum(g.ns) AS ns
       FROM ga g JOIN kernel_category c ON c.name_id = g.name_id
       WHERE c.scheme = :scheme
       GROUP BY c.category),
cb AS (SELECT c.category, sum(g.ns) AS ns
       FROM gb g JOIN kernel_category c ON c.name_id = g.name_id
       WHERE c.scheme = :scheme
       GROUP BY c.category),
c AS (SELECT category FROM ca UNION SELECT category FROM cb),
j AS (
  SELECT c.category,
    coalesce(ca.ns, 0) AS a_tot, coalesce(cb.ns, 0) AS b_tot,
    coalesce(ca.ns, 0) * 1.0 / sa.n AS a_ns,
    coalesce(cb.ns, 0) * 1.0 / sb.n AS b_ns,
    sa.dur AS a_dur, sb.dur AS b_dur
  FROM c CROSS JOIN sa CROSS JOIN sb
  LEFT JOIN ca ON ca.category = c.category
  LEFT JOIN cb ON cb.category = c.category
),
f AS (
  SELECT j.*,
    (100.0 * a_ns / max(coalesce(a_dur, 0), 1) < :floor_pct
     AND 100.0 * b_ns / max(coalesce(b_dur, 0), 1) < :floor_pct) AS small
  FROM j
),
rows AS (
  SELECT 0 AS grp, category, a_tot, b_tot, a_ns, b_ns, a_dur, b_dur
  FROM f WHERE NOT small
  UNION ALL
  SELECT 1, '(other: ' || count(*) || ')', sum(a_tot), sum(b_tot),
    sum(a_ns), sum(b_ns), max(a_dur), max(b_dur)
  FROM f WHERE small HAVING count(*) > 0
)
SELECT category,
  round(a_ns / 1e6, 4) AS a_ms,
  round(b_ns / 1e6, 4) AS b_ms,
  round((b_ns - a_ns) / 1e6, 4) AS delta_ms,
  CASE WHEN a_ns > 0 THEN round(100.0 * (b_ns - a_ns) / a_ns, 2) END
    AS delta_pct,
  CASE WHEN b_ns > 0 AND a_ns > 0 THEN round(a_ns / b_ns, 3) END AS speedup,
  round(100.0 * a_tot / max(coalesce((SELECT ns FROM ta), 0), 1), 2) AS a_pct,
  round(100.0 * b_tot / max(coalesce((SELECT ns FROM tb), 0), 1), 2) AS b_pct,
  round(100.0 * a_ns / max(coalesce(a_dur, 0), 1), 2) AS a_step_pct,
  round(100.0 * b_ns / max(coalesce(b_dur, 0), 1), 2) AS b_step_pct
FROM rows
ORDER BY grp, max(a_ns, b_ns) DESC, category;
