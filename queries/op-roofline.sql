-- name: op-roofline
-- description: Modeled operators (GEMMs; elementwise, norm, softmax and copy
-- description: as streaming kinds) per input shape against the roofline of
-- description: the GPU they ran on (op_model formulas, gpu_spec
-- description: peaks): FLOPs, bytes, intensity, achieved TFLOP/s and TB/s,
-- description: the bound (compute or memory) and the memory tier (l2 or
-- description: hbm: a hierarchical roofline, schema 064), the % of that
-- description: roofline and the recoverable time, GPU time x (1 -
-- description: efficiency).  GPU
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
-- column: gbytes         minimum bytes moved (all pass the L2), 1e9
-- column: hbm_gbytes     of them the bytes that must cross HBM, 1e9: none when the call's distinct tensors fit in L2, else gbytes less one L2 capacity a call (all of them on a GPU without L2 figures)
-- column: intensity      FLOPs per byte (gflop / gbytes)
-- column: tflops         achieved TFLOP/s
-- column: tbps           achieved TB/s
-- column: bound          'compute' or 'memory' (which roofline term is larger)
-- column: tier           memory level of the roof: 'l2' (gbytes / L2 bandwidth, the call's data fits in L2) or 'hbm' (hbm_gbytes / HBM bandwidth), whichever takes longer; the shape and the GPU decide it
-- column: roofline_pct   roofline time / GPU time, %; with dur_res 'whole_us' each GPU interval counts 1 µs longer (the lowest efficiency the whole-µs record allows)
-- column: roof_us        roofline time per call, µs (a few µs or less: the call is too small to fill the GPU, launch and tail latency dominate; batch or fuse it)
-- column: recoverable_ms  GPU time - roofline time, ms (sort key; rows without a roofline come last)
-- column: dur_res        'whole_us' when GPU intervals of these calls were recorded in whole µs (truncated: up to 1 µs short each), else 'ns'
-- the run's calls: its cpu_op rowid range (op_id is a cpu_op.id, schema
-- 123), summed below in the order of the index op_gpu_time_run that read
-- them before (rank, name_id, union_ns, n_gpu, op_id): the same sums
WITH c AS MATERIALIZED (
  SELECT name, dims, dtype, peak, gpu, gpu_ns, slack_ns, flops, bytes,
    hbm_bytes, roof_ns, bound, tier, whole_us
  FROM op_roofline_call
  WHERE op_id BETWEEN (SELECT lo FROM run_rowid_range
                       WHERE run_id = :run AND tbl = 'cpu_op')
                  AND (SELECT hi FROM run_rowid_range
                       WHERE run_id = :run AND tbl = 'cpu_op')
    AND +run_id = :run AND (:rank IS NULL OR rank = :rank)
  ORDER BY rank, name_id, gpu_ns, n_gpu, op_id
)
SELECT name, dims, dtype, coalesce(peak, '') AS peak,
  coalesce(gpu, '') AS gpu, count(*) AS calls,
  round(sum(gpu_ns) / 1e6, 4) AS gpu_ms,
  round(sum(flops) / 1e9, 4) AS gflop,
  round(sum(bytes) / 1e9, 6) AS gbytes,
  round(sum(hbm_bytes) / 1e9, 6) AS hbm_gbytes,
  round(sum(flops) / sum(bytes), 2) AS intensity,
  round(sum(flops) / sum(gpu_ns) / 1e3, 3) AS tflops,
  round(sum(bytes) / sum(gpu_ns) / 1e3, 4) AS tbps,
  coalesce(max(bound), '') AS bound,
  coalesce(max(tier), '') AS tier,
  round(100.0 * sum(roof_ns) / sum(gpu_ns + slack_ns), 2) AS roofline_pct,
  round(sum(roof_ns) / count(*) / 1e3, 4) AS roof_us,
  round(sum(max(0, gpu_ns - roof_ns)) / 1e6, 4) AS recoverable_ms,
  CASE WHEN sum(whole_us) > 0 THEN 'whole_us' ELSE 'ns' END AS dur_res
FROM c
GROUP BY name, dims, dtype, peak, gpu
ORDER BY count(roof_ns) > 0 DESC,
  sum(max(0, gpu_ns - coalesce(roof_ns, 0))) DESC, name, dims
LIMIT :limit;
