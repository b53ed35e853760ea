-- name: diff-kernels
-- description: Per-kernel GPU time per step in a baseline run (:baseline)
-- description: and this run (:run): delta, speedup, new and vanished
-- description: kernels; rows under the noise floor in both runs are folded
-- description: into one "(other)" row.  `profan diff A B --by kernel`.
-- param: baseline:run! =      the baseline run id (profan diff binds it)
-- param: floor_pct:number>=0 = 0.3  fold rows below this % of step time (a_step_pct, b_step_pct) in both runs
-- param: limit:int>=0 = 50      rows to show (before the "(other)" row)
-- column: kind           kernel, memcpy or memset ("" for the folded row)
-- column: name           kernel name, or "(other)" with the folded count
-- column: status         new (only in :run), vanished, changed, folded
-- column: a_ms           baseline GPU time per step, ms
-- column: b_ms           this run's GPU time per step, ms
-- column: delta_ms       b_ms - a_ms
-- column: delta_pct      change relative to a_ms, % (NULL when new)
-- column: speedup        a_ms / b_ms (above 1: faster in :run)
-- column: a_step_pct     a_ms as % of the baseline's step time: the longest of its mean CPU step, the GPU-side span of its GPU work per step and its GPU time per step summed over streams (view step_share), so never above 100
-- column: b_step_pct     b_ms as % of this run's step time (the same)
WITH
-- steps, and the step time shares are of (view step_share, schema 067)
sa AS (SELECT steps AS n, step_ns AS dur FROM step_share
       WHERE run_id = :baseline),
sb AS (SELECT steps AS n, step_ns AS dur FROM step_share
       WHERE run_id = :run),
ka AS (SELECT kind, name_id, sum(total_ns) AS ns FROM gpu_op_summary
       WHERE run_id = :baseline GROUP BY kind, name_id),
kb AS (SELECT kind, name_id, sum(total_ns) AS ns FROM gpu_op_summary
       WHERE run_id = :run GROUP BY kind, name_id),
k AS (SELECT kind, name_id FROM ka UNION SELECT kind, name_id FROM kb),
j AS (
  SELECT k.kind, k.name_id,
    coalesce(ka.ns, 0) * 1.0 / sa.n AS a_ns,
    coalesce(kb.ns, 0) * 1.0 / sb.n AS b_ns,
    CASE WHEN ka.ns IS NULL THEN 'new' WHEN kb.ns IS NULL THEN 'vanished'
         ELSE 'changed' END AS status,
    sa.dur AS a_dur, sb.dur AS b_dur
  FROM k CROSS JOIN sa CROSS JOIN sb
  LEFT JOIN ka ON ka.kind = k.kind AND ka.name_id = k.name_id
  LEFT JOIN kb ON kb.kind = k.kind AND kb.name_id = k.name_id
),
f AS (
  SELECT j.*,
    (100.0 * a_ns / max(coalesce(a_dur, 0), 1) < :floor_pct
     AND 100.0 * b_ns / max(coalesce(b_dur, 0), 1) < :floor_pct) AS small
  FROM j
),
big AS (
  SELECT f.kind, s.text AS name, f.status, f.a_ns, f.b_ns, f.a_dur, f.b_dur
  FROM f JOIN string s ON s.id = f.name_id
  WHERE NOT f.small
  ORDER BY max(f.a_ns, f.b_ns) DESC, s.text
  LIMIT :limit
),
rows AS (
  SELECT 0 AS grp, kind, name, status, a_ns, b_ns, a_dur, b_dur FROM big
  UNION ALL
  SELECT 1, '', '(other: ' || count(*) || ')', 'folded', sum(a_ns),
    sum(b_ns), max(a_dur), max(b_dur)
  FROM f WHERE small HAVING count(*) > 0
)
SELECT kind, name, status,
  round(a_ns / 1e6, 4) AS a_ms,
  round(b_ns / 1e6, 4) AS b_ms,
  round((b_ns - a_ns) / 1e6, 4) AS delta_ms,
  CASE WHEN a_ns > 0 THEN round(100.0 * (b_ns - a_ns) / a_ns, 2) END
    AS delta_pct,
  CASE WHEN b_ns > 0 AND a_ns > 0 THEN round(a_ns / b_ns, 3) END AS speedup,
  round(100.0 * a_ns / max(coalesce(a_dur, 0), 1), 2) AS a_step_pct,
  round(100.0 * b_ns / max(coalesce(b_dur, 0), 1), 2) AS b_step_pct
FROM rows
ORDER BY grp, max(a_ns, b_ns) DESC, name;
