-- name: checkpoint-recompute
-- description: Gradient-checkpoint recompute: CPU time of operators whose
-- description: name contains 'checkpoint' or 'recompute', and the GPU time of
-- description: every kernel launched inside them (at any depth).
-- param: rank:rank =          only this rank (empty: every rank)
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
  -- top-most: the parent's name (cpu_op_summary, schema 009) is not one
  SELECT o.rank, sum(o.calls) AS n, sum(o.total_ns) AS ns
  FROM cpu_op_summary o
  WHERE o.run_id = :run AND (:rank IS NULL OR o.rank = :rank)
    AND o.name_id IN rc_name AND o.parent_name_id NOT IN rc_name
  GROUP BY o.rank
),
k AS (
  -- kernels whose runtime call has in_recompute = 1 (runtime_summary)
  SELECT rank, sum(recompute_kernels) AS n, sum(recompute_kernel_ns) AS ns
  FROM runtime_summary
  WHERE run_id = :run AND (:rank IS NULL OR rank = :rank)
  GROUP BY rank
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
