-- name: tflops
-- description: Achieved TFLOP/s of operators with a FLOP count: the trace's
-- description: 'flops' argument when present, else 2*M*K*N estimated from the
-- description: input shapes of aten::mm, addmm, bmm, baddbmm, addbmm and
-- description: _scaled_mm (nested ops are not counted twice), divided by the
-- description: GPU time of the kernels each launched.
-- param: rank =          only this rank (empty: every rank)
-- column: name           operator
-- column: flops_source   'arg' (from the trace) or 'estimate' (from shapes)
-- column: calls          calls with a FLOP count
-- column: tflop          total FLOPs, 1e12
-- column: gpu_ms         GPU time of the kernels they launched, ms
-- column: tflops         achieved TFLOP/s
WITH o AS (
  SELECT id, name_id, flops, flops_source FROM cpu_op
  WHERE run_id = :run AND flops IS NOT NULL AND (:rank IS NULL OR rank = :rank)
),
k AS (
  SELECT op_id, sum(dur) AS ns FROM kernel
  WHERE run_id = :run AND op_id IN (SELECT id FROM o) GROUP BY op_id
)
SELECT s.text AS name, o.flops_source, count(*) AS calls,
  round(sum(o.flops) / 1e12, 6) AS tflop,
  round(sum(coalesce(k.ns, 0)) / 1e6, 3) AS gpu_ms,
  round(sum(CASE WHEN k.ns > 0 THEN o.flops END) / 1e3
        / nullif(sum(coalesce(k.ns, 0)), 0), 3) AS tflops
FROM o JOIN string s ON s.id = o.name_id LEFT JOIN k ON k.op_id = o.id
GROUP BY o.name_id, o.flops_source
ORDER BY sum(o.flops) DESC;
