-- name: checkpoint-recompute
-- description: Gradient-checkpoint recompute: CPU time of operators whose
-- description: name contains 'checkpoint' or 'recompute', and the GPU time of
-- description: every kernel launched inside them (at any depth).
-- param: rank =          only this rank (empty: every rank)
-- column: rank           rank
-- column: recompute_ops  top-most checkpoint/recompute operators
-- column: cpu_ms         their CPU time, ms
-- column: kernels        kernels launched inside them
-- column: gpu_ms         GPU time of those kernels, ms
-- column: pct_of_gpu     share of the rank's kernel time, %
WITH rc_name AS (
  -- names first: matching text once per name, not once per op
  SELECT id FROM string
  WHERE instr(lower(text), 'checkpoint') > 0 OR instr(lower(text), 'recompute') > 0
),
ops AS (
  SELECT o.rank, count(*) AS n, sum(o.dur) AS ns
  FROM cpu_op o
  WHERE o.run_id = :run AND (:rank IS NULL OR o.rank = :rank)
    AND o.name_id IN rc_name
    AND NOT EXISTS (SELECT 1 FROM cpu_op p
                    WHERE p.id = o.parent_id AND p.name_id IN rc_name)
  GROUP BY o.rank
),
k AS (
  SELECT k.rank, count(*) AS n, sum(k.dur) AS ns
  FROM kernel k JOIN runtime_call r ON r.id = k.runtime_id
  WHERE k.run_id = :run AND r.in_recompute = 1
    AND (:rank IS NULL OR k.rank = :rank)
  GROUP BY k.rank
),
tot AS (
  SELECT rank, sum(total_ns) AS ns FROM gpu_op_summary
  WHERE run_id = :run AND kind = 'kernel' GROUP BY rank
)
SELECT r.rank, coalesce(ops.n, 0) AS recompute_ops,
  round(coalesce(ops.ns, 0) / 1e6, 3) AS cpu_ms,
  coalesce(k.n, 0) AS kernels,
  round(coalesce(k.ns, 0) / 1e6, 3) AS gpu_ms,
  round(100.0 * coalesce(k.ns, 0) / max(tot.ns, 1), 2) AS pct_of_gpu
FROM (SELECT DISTINCT rank FROM run_file WHERE run_id = :run AND kind = 'trace'
      AND (:rank IS NULL OR rank = :rank)) r
LEFT JOIN ops ON ops.rank = r.rank
LEFT JOIN k ON k.rank = r.rank
LEFT JOIN tot ON tot.rank = r.rank
ORDER BY r.rank;
