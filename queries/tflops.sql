-- name: tflops
-- description: Achieved TFLOP/s of operators with a FLOP count: the trace's
-- description: 'flops' argument when present, else 2*M*K*N estimated from the
-- description: input shapes of aten::mm, addmm, bmm, baddbmm, addbmm and
-- description: _scaled_mm (nested ops are not counted twice), divided by the
-- description: GPU time of the kernels each launched.  The estimate leaves
-- description: out the bias add of addmm/baddbmm and the time of the cuBLAS
-- description: workspace memsets a GEMM launches; op-roofline counts both.
-- param: rank:rank =          only this rank (empty: every rank)
-- column: name           operator
-- column: flops_source   'arg' (from the trace) or 'estimate' (from shapes)
-- column: calls          calls with a FLOP count
-- column: tflop          total FLOPs, 1e12
-- column: gpu_ms         GPU time of the kernels they launched, ms
-- column: tflops         achieved TFLOP/s
WITH f AS (
  -- cpu_op_flops_summary (schema 009): the ops with a FLOP count, and
  -- those of them that launched kernels with their FLOPs and kernel time
  SELECT name_id, flops_source, sum(calls) AS calls, sum(flops) AS fl,
    sum(kernel_calls) AS k_calls, sum(kernel_flops) AS k_fl,
    sum(kernel_ns) AS k_ns
  FROM cpu_op_flops_summary
  WHERE run_id = :run AND (:rank IS NULL OR rank = :rank)
  GROUP BY name_id, flops_source
),
allo AS (SELECT name_id, flops_source, calls, fl FROM f),
withk AS (
  SELECT name_id, flops_source, k_fl AS fl, k_ns AS ns FROM f
  WHERE k_calls > 0
)
SELECT s.text AS name, a.flops_source, a.calls,
  round(a.fl / 1e12, 6) AS tflop,
  round(coalesce(w.ns, 0) / 1e6, 3) AS gpu_ms,
  round(w.fl / 1e3 / nullif(w.ns, 0), 3) AS tflops
FROM allo a JOIN string s ON s.id = a.name_id
LEFT JOIN withk w ON w.name_id = a.name_id AND w.flops_source = a.flops_source
ORDER BY a.fl DESC;
