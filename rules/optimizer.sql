-- name: optimizer
-- description: Optimizer time as a share of the step time: the wall time
-- description: covered by "Optimizer.step*" annotations or CPU ops inside
-- description: the steps, or (when larger) the time covered by kernels of
-- description: the detailed category "Optimizer" inside the steps, over
-- description: the steps' time, per rank, summed over ranks; above
-- description: threshold_pct.  Each is the union of its intervals: a
-- description: nested annotation of the same name (an Optimizer.step
-- description: inside another) is counted once, and the share cannot
-- description: pass 100 %.
-- param: threshold_pct:number>=0 = 15  share of step time, %
WITH nm AS (
  SELECT id FROM string WHERE text GLOB 'Optimizer.step*'
),
cpu AS (
  SELECT rank, ts, ts + dur AS e FROM annotation
  WHERE run_id = :run AND kind = 'user' AND name_id IN (SELECT id FROM nm)
  UNION ALL
  SELECT rank, ts, ts + dur FROM cpu_op      -- by the run's rowid range
  WHERE id BETWEEN (SELECT lo FROM run_rowid_range
                    WHERE run_id = :run AND tbl = 'cpu_op')
    AND (SELECT hi FROM run_rowid_range
         WHERE run_id = :run AND tbl = 'cpu_op')
    AND run_id = :run AND name_id IN (SELECT id FROM nm)
    AND EXISTS (SELECT 1 FROM cpu_op_summary WHERE run_id = :run
                AND name_id IN (SELECT id FROM nm))
),
gpu AS (
  SELECT rank, ts, ts + dur AS e FROM kernel
  WHERE run_id = :run AND name_id IN (
    SELECT name_id FROM kernel_category
    WHERE scheme = 'detailed' AND category = 'Optimizer'
      AND name_id IN (SELECT name_id FROM gpu_op_summary
                      WHERE run_id = :run AND kind = 'kernel'))
),
iv AS (
  SELECT 'cpu' AS src, rank, ts, e FROM cpu
  UNION ALL SELECT 'gpu', rank, ts, e FROM gpu
),
-- each interval clipped to the steps of its rank
cl AS (
  SELECT iv.src, iv.rank, max(iv.ts, s.ts) AS ts, min(iv.e, s.ts + s.dur) AS e
  FROM iv JOIN step s ON s.run_id = :run AND s.rank = iv.rank
    AND s.ts < iv.e AND s.ts + s.dur > iv.ts
),
-- the union per (src, rank): an island starts where no earlier interval
-- reaches
o AS (
  SELECT src, rank, ts, e,
    max(e) OVER (PARTITION BY src, rank ORDER BY ts, e
                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reach
  FROM cl
),
isl AS (
  SELECT src, rank, ts, e,
    sum(CASE WHEN reach IS NULL OR ts > reach THEN 1 ELSE 0 END)
      OVER (PARTITION BY src, rank ORDER BY ts, e) AS k
  FROM o
),
u AS (
  SELECT src, sum(len) AS ns FROM (
    SELECT src, max(e) - min(ts) AS len FROM isl GROUP BY src, rank, k)
  GROUP BY src
),
st AS (
  SELECT sum(dur) AS ns FROM step WHERE run_id = :run
),
v AS (
  SELECT 100.0 * max(coalesce((SELECT ns FROM u WHERE src = 'cpu'), 0),
                     coalesce((SELECT ns FROM u WHERE src = 'gpu'), 0))
         / st.ns AS value
  FROM st WHERE st.ns > 0
)
SELECT 'medium' AS severity, 'optimizer' AS rule,
  printf('the optimizer takes %.1f %% of the step time', value) AS message,
  round(value, 2) AS value, :threshold_pct AS threshold,
  'fused or foreach optimizer implementations' AS hint
FROM v WHERE value > :threshold_pct;
