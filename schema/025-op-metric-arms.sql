-- 025-op-metric-arms.sql — the operator model's headline metrics read
-- only the arms that can give them.
--
-- op_metric_calc (022) asks op_roofline_call for GEMM and attention calls,
-- but a filter on the computed kind cannot reach op_model's arms, so every
-- ingest evaluated all of them -- the streaming arm's json_each over every
-- op's input shapes included -- over EVERY run in the database (the
-- op_target filter was not pushed into them either): derive op cost
-- 0.35 s on a first 109k-event trace and 0.75 s once four other runs
-- were stored.  Here each arm of op_model says whether it models matrix
-- work (`matmul`: op_gemm, op_sdpa, op_sdpa_bwd -- the only arms whose
-- kinds are gemm* or attention*); op_roofline_call carries the column and
-- op_metric_calc keeps `matmul` rows, a constant SQLite evaluates once per
-- arm, so the other arms are not run.  Definitions otherwise as in 022.

DROP VIEW op_metric_calc;
DROP VIEW op_roofline_call;
DROP VIEW op_model;

-- Every modeled operator call, with the arm's matmul flag.
CREATE VIEW op_model AS
SELECT 1 AS matmul, g.op_id, g.run_id, g.rank, g.name,
  coalesce((SELECT r.kind FROM op_kind_rule r WHERE g.name GLOB r.pattern
            ORDER BY r.priority, r.rowid LIMIT 1), 'unknown') AS kind,
  g.dims, g.dtype, g.flops, g.bytes
FROM op_gemm g
UNION ALL
SELECT 1, op_id, run_id, rank, name, kind, dims, dtype, flops, bytes
FROM op_sdpa
UNION ALL
SELECT 0, op_id, run_id, rank, name, kind, dims, dtype, flops, bytes
FROM op_stream
UNION ALL
SELECT 0, op_id, run_id, rank, name, kind, dims, dtype, flops, bytes
FROM op_conv_model
UNION ALL
SELECT 1, op_id, run_id, rank, name, kind, dims, dtype, flops, bytes
FROM op_sdpa_bwd
UNION ALL
SELECT 0, op_id, run_id, rank, name, kind, dims, dtype, flops, bytes
FROM op_gather_model;

CREATE VIEW op_roofline_call AS
WITH dsm AS MATERIALIZED (SELECT * FROM device_spec),  -- GLOB once a GPU
c AS (
  SELECT g.matmul, g.op_id, g.run_id, g.rank, t.device, g.name, g.kind,
    g.dims, g.dtype, g.flops, g.bytes, t.union_ns AS gpu_ns, t.sum_ns, t.n_gpu,
    ds.gpu, CASE WHEN dt.peak = 'fp32' AND t.tf32 AND ds.tf32 > 0
                 THEN 'tf32' ELSE dt.peak END AS peak,
    ds.fp32, ds.tf32, ds.bf16, ds.fp16, ds.fp8, ds.int8, ds.mem_tbps
  FROM op_model g JOIN op_call_time t ON t.op_id = g.op_id
  LEFT JOIN op_dtype dt ON dt.type = g.dtype
  LEFT JOIN dsm ds ON ds.run_id = g.run_id AND ds.rank = g.rank
    AND ds.device = t.device
  WHERE t.union_ns > 0 AND t.host_copies = 0
)
SELECT matmul, op_id, run_id, rank, device, name, kind, dims, dtype, flops,
  bytes,  gpu_ns, sum_ns, n_gpu, gpu, peak,
  CASE peak WHEN 'fp32' THEN fp32 WHEN 'tf32' THEN tf32 WHEN 'bf16' THEN bf16
    WHEN 'fp16' THEN fp16 WHEN 'fp8' THEN fp8 WHEN 'int8' THEN int8
  END AS peak_tflops,
  mem_tbps
FROM c;

CREATE VIEW op_metric_calc AS
WITH r AS MATERIALIZED (
  SELECT run_id, CASE WHEN kind GLOB 'gemm*' THEN 'gemm'
                      ELSE 'attention' END AS fam, gpu_ns,
    max(flops / (peak_tflops * 1e3), bytes / (mem_tbps * 1e3)) AS roof_ns
  FROM op_roofline_call
  WHERE run_id IN (SELECT run_id FROM op_target)
    AND peak_tflops > 0 AND mem_tbps > 0
    AND matmul AND (kind GLOB 'gemm*' OR kind GLOB 'attention*')
)
SELECT run_id, fam || '_efficiency_pct' AS metric,
  100.0 * sum(roof_ns) / sum(gpu_ns) AS value FROM r GROUP BY run_id, fam
UNION ALL
SELECT run_id, fam || '_recoverable_ms', sum(max(0, gpu_ns - roof_ns)) / 1e6
  FROM r GROUP BY run_id, fam
UNION ALL
SELECT run_id, fam || '_time_ms', sum(gpu_ns) / 1e6 FROM r
  GROUP BY run_id, fam
UNION ALL
SELECT run_id, 'kernels_without_launch', sum(kernels)
  FROM kernel_unlaunched WHERE run_id IN (SELECT run_id FROM op_target)
  GROUP BY run_id
UNION ALL
SELECT run_id, 'kernels_without_launch_ms', sum(ns) / 1e6
  FROM kernel_unlaunched WHERE run_id IN (SELECT run_id FROM op_target)
  GROUP BY run_id
UNION ALL
SELECT run_id, 'exposed_memcpy_ms', sum(exposed_ns) / 1e6
  FROM memcpy_exposed_calc GROUP BY run_id;
