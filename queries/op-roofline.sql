-- name: op-roofline
-- description: Modeled operators (GEMMs; elementwise, norm, softmax and copy
-- description: as streaming kinds) per input shape against the roofline of
-- description: the GPU they ran on (op_model formulas, gpu_spec
-- description: peaks): FLOPs, bytes, intensity, achieved TFLOP/s and TB/s,
-- description: the bound (compute or memory), the % of that roofline and
-- description: the recoverable time, GPU time x (1 - efficiency).  GPU
-- description: time is the union of each call's kernels and memsets
-- description: (overlapping kernels count once; cuBLAS workspace memsets
-- description: included).  Rows without a spec show no efficiency; calls
-- description: not modeled at all are counted by op-kinds, with the
-- description: reason (not_modeled: no shapes recorded, no formula ...).
-- param: rank:rank =          only this rank (empty: every rank)
-- param: limit:int>=1 = 25      rows to show
-- column: name           operator
-- column: dims           input shapes as recorded
-- column: dtype          element type of the first operand
-- column: peak           peak used: fp32, tf32 (float on a TF32 kernel), bf16 ...
-- column: gpu            spec row used (gpu_spec.gpu), empty when none
-- column: calls          calls timed
-- column: gpu_ms         GPU time, union of each call's kernels, ms
-- column: gflop          FLOPs of all calls, 1e9 (GEMM: 2MKN + bias adds)
-- column: gbytes         minimum bytes moved, 1e9
-- column: intensity      FLOPs per byte
-- column: tflops         achieved TFLOP/s
-- column: tbps           achieved TB/s
-- column: bound          'compute' or 'memory' (which roofline term is larger)
-- column: roofline_pct   roofline time / GPU time, %
-- column: roof_us        roofline time per call, µs (a few µs or less: the call is too small to fill the GPU, launch and tail latency dominate; batch or fuse it)
-- column: recoverable_ms  GPU time - roofline time, ms (sort key; rows without a roofline come last)
WITH c AS (
  SELECT name, dims, dtype, peak, gpu, gpu_ns, flops, bytes,
    CASE WHEN peak_tflops > 0 AND mem_tbps > 0 THEN
      max(flops / (peak_tflops * 1e3), bytes / (mem_tbps * 1e3)) END
      AS roof_ns,
    CASE WHEN peak_tflops > 0 AND mem_tbps > 0 THEN
      CASE WHEN flops / (peak_tflops * 1e3) >= bytes / (mem_tbps * 1e3)
           THEN 'compute' ELSE 'memory' END END AS bound
  FROM op_roofline_call
  WHERE run_id = :run AND (:rank IS NULL OR rank = :rank)
)
SELECT name, dims, dtype, coalesce(peak, '') AS peak,
  coalesce(gpu, '') AS gpu, count(*) AS calls,
  round(sum(gpu_ns) / 1e6, 4) AS gpu_ms,
  round(sum(flops) / 1e9, 4) AS gflop,
  round(sum(bytes) / 1e9, 6) AS gbytes,
  round(sum(flops) / sum(bytes), 2) AS intensity,
  round(sum(flops) / sum(gpu_ns) / 1e3, 3) AS tflops,
  round(sum(bytes) / sum(gpu_ns) / 1e3, 4) AS tbps,
  coalesce(max(bound), '') AS bound,
  round(100.0 * sum(roof_ns) / sum(gpu_ns), 2) AS roofline_pct,
  round(sum(roof_ns) / count(*) / 1e3, 4) AS roof_us,
  round(sum(max(0, gpu_ns - roof_ns)) / 1e6, 4) AS recoverable_ms
FROM c
GROUP BY name, dims, dtype, peak, gpu
ORDER BY count(roof_ns) > 0 DESC,
  sum(max(0, gpu_ns - coalesce(roof_ns, 0))) DESC, name, dims
LIMIT :limit;
