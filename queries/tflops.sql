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
WITH kg AS (
  -- kernel time per launching op: one pass over the run's kernels
  SELECT op_id, sum(dur) AS ns FROM kernel
  WHERE run_id = :run AND op_id IS NOT NULL GROUP BY op_id
),
withk AS (
  SELECT o.name_id, o.flops_source, sum(o.flops) AS fl, sum(kg.ns) AS ns
  FROM kg JOIN cpu_op o ON o.id = kg.op_id
  WHERE o.flops IS NOT NULL AND (:rank IS NULL OR o.rank = :rank)
  GROUP BY o.name_id, o.flops_source
),
allo AS (
  SELECT name_id, flops_source, count(*) AS calls, sum(flops) AS fl
  FROM cpu_op
  WHERE run_id = :run AND flops IS NOT NULL AND (:rank IS NULL OR rank = :rank)
  GROUP BY name_id, flops_source
)
SELECT s.text AS name, a.flops_source, a.calls,
  round(a.fl / 1e12, 6) AS tflop,
  round(coalesce(w.ns, 0) / 1e6, 3) AS gpu_ms,
  round(w.fl / 1e3 / nullif(w.ns, 0), 3) AS tflops
FROM allo a JOIN string s ON s.id = a.name_id
LEFT JOIN withk w ON w.name_id = a.name_id AND w.flops_source = a.flops_source
ORDER BY a.fl DESC;
