-- name: optimizer
-- description: Optimizer time as a share of the mean step time: the wall
-- description: time of "Optimizer.step*" annotations or CPU ops per step,
-- description: or (when larger) the GPU time of kernels in the detailed
-- description: category "Optimizer" per step; above threshold_pct.
-- param: threshold_pct:number>=0 = 15  share of step time, %
WITH st AS (
  SELECT count(*) AS n, avg(dur) AS dur FROM step WHERE run_id = :run
),
wall AS (
  SELECT sum(x.dur) AS ns FROM (
    SELECT a.dur FROM annotation a JOIN string s ON s.id = a.name_id
    WHERE a.run_id = :run AND a.kind = 'user'
      AND s.text GLOB 'Optimizer.step*'
    UNION ALL
    -- top-level ops (depth 0) from the summary: parent_name_id 0
    SELECT o.total_ns FROM cpu_op_summary o JOIN string s ON s.id = o.name_id
    WHERE o.run_id = :run AND o.parent_name_id = 0
      AND s.text GLOB 'Optimizer.step*'
  ) x
),
gpu AS (
  -- the names of the category first (IN: kernel_category evaluated once,
  -- not per row: 1.4 s -> 0.04 s at 256 ranks)
  SELECT sum(g.total_ns) AS ns FROM gpu_op_summary g
  WHERE g.run_id = :run AND g.name_id IN (
    SELECT name_id FROM kernel_category
    WHERE scheme = 'detailed' AND category = 'Optimizer')
),
v AS (
  SELECT 100.0 * max(coalesce(wall.ns, 0), coalesce(gpu.ns, 0))
         / st.n / st.dur AS value
  FROM st, wall, gpu WHERE st.n > 0 AND st.dur > 0
)
SELECT 'medium' AS severity, 'optimizer' AS rule,
  printf('the optimizer takes %.1f %% of the step time', value) AS message,
  round(value, 2) AS value, :threshold_pct AS threshold,
  'fused or foreach optimizer implementations' AS hint
FROM v WHERE value > :threshold_pct;
