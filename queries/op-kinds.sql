-- name: op-kinds
-- description: GPU time per operator kind (schema 016, op_kind_rule:
-- description: gemm, conv, attention, norm, softmax, copy, elementwise,
-- description: ..., 'unknown' when no rule matches), counting each call's
-- description: kernels and memsets once however they overlap, and the
-- description: roofline efficiency where the kind has a formula (GEMMs).
-- param: rank:rank =          only this rank (empty: every rank)
-- column: kind           operator kind
-- column: ops            distinct operator names of that kind
-- column: calls          calls that ran on the GPU
-- column: gpu_ms         GPU time, union of each call's kernels, ms
-- column: summed_ms      the same kernels' durations simply added, ms
-- column: modeled_calls  calls with FLOPs, bytes and a GPU spec
-- column: roofline_pct   roofline time / GPU time of the modeled calls, %
-- column: recoverable_ms GPU time - roofline time of the modeled calls, ms
WITH t AS (
  SELECT t.op_id, k.kind, o.name_id, t.union_ns, t.sum_ns
  FROM op_call_time t JOIN cpu_op o ON o.id = t.op_id
  JOIN op_kind k ON k.name_id = o.name_id
  WHERE t.run_id = :run AND (:rank IS NULL OR t.rank = :rank)
),
m AS (
  SELECT op_id, gpu_ns,
    max(flops / (peak_tflops * 1e3), bytes / (mem_tbps * 1e3)) AS roof_ns
  FROM op_roofline_call
  WHERE run_id = :run AND (:rank IS NULL OR rank = :rank)
    AND peak_tflops > 0 AND mem_tbps > 0
)
SELECT t.kind, count(DISTINCT t.name_id) AS ops, count(*) AS calls,
  round(sum(t.union_ns) / 1e6, 4) AS gpu_ms,
  round(sum(t.sum_ns) / 1e6, 4) AS summed_ms,
  count(m.op_id) AS modeled_calls,
  round(100.0 * sum(m.roof_ns) / sum(m.gpu_ns), 2) AS roofline_pct,
  round(sum(max(0, m.gpu_ns - m.roof_ns)) / 1e6, 4) AS recoverable_ms
FROM t LEFT JOIN m ON m.op_id = t.op_id
GROUP BY t.kind ORDER BY sum(t.union_ns) DESC;
