-- 029-roofline-core.sql — the roofline of each operator call without its
-- names (op_roofline_core), and the run's GEMM and attention efficiency
-- computed from it in one pass over the run's calls.
--
-- op_metric_roof_calc (028) read op_roofline_call, which joins every call
-- to op_sig and two strings for its name and dims, found the run's calls
-- through the op_gpu_time_run index (a table lookup a call), kept the
-- GEMM and attention calls in a materialized table and grouped it three
-- times: 75 ms of the 1.5 s ingest of the 10x A100 bench trace (74,700
-- calls with GPU time, 17,760 of them GEMMs), the largest pass over
-- stored rows left in it (issue 15).  Here the formulas of 028's
-- op_roofline_call move unchanged into op_roofline_core (no names: the
-- signature id instead); op_roofline_call is op_roofline_core with the
-- names, same columns; op_metric_roof_calc reads op_roofline_core over
-- the rowid range of the target runs' operator calls (op_gpu_time.op_id
-- is a cpu_op.id: min and max come from the cpu_op_run index) and sums
-- each family once.

DROP VIEW op_metric_calc;
DROP VIEW op_metric_roof_calc;
DROP VIEW op_roofline_call;

-- One row per operator call with GPU time, no host copies and a model:
-- its model, its GPU's peak for the call's dtype (tf32 when an fp32
-- call ran a TF32 kernel on a GPU that has it) and memory bandwidth.
CREATE VIEW op_roofline_core AS
WITH dsm AS MATERIALIZED (       -- GLOB once a GPU, of the runs in scope
  SELECT * FROM device_spec WHERE run_id IN (SELECT run_id FROM op_scope)),
c AS (
  SELECT m.matmul, t.op_id, t.run_id, t.rank, t.device, t.sig_id,
    m.kind, m.dtype, m.flops, m.bytes, t.union_ns AS gpu_ns,
    t.sum_ns, t.n_gpu,
    ds.gpu, CASE WHEN dt.peak = 'fp32' AND t.tf32 AND ds.tf32 > 0
                 THEN 'tf32' ELSE dt.peak END AS peak,
    ds.fp32, ds.tf32, ds.bf16, ds.fp16, ds.fp8, ds.int8, ds.mem_tbps
  FROM op_gpu_time t JOIN op_sig_model m ON m.sig_id = t.sig_id
  LEFT JOIN op_dtype dt ON dt.type = m.dtype
  LEFT JOIN dsm ds ON ds.run_id = t.run_id AND ds.rank = t.rank
    AND ds.device = t.device
  WHERE t.union_ns > 0 AND t.host_copies = 0
)
SELECT matmul, op_id, run_id, rank, device, sig_id, kind, dtype, flops,
  bytes, gpu_ns, sum_ns, n_gpu, gpu, peak,
  CASE peak WHEN 'fp32' THEN fp32 WHEN 'tf32' THEN tf32 WHEN 'bf16' THEN bf16
    WHEN 'fp16' THEN fp16 WHEN 'fp8' THEN fp8 WHEN 'int8' THEN int8
  END AS peak_tflops,
  mem_tbps
FROM c;

-- 028's columns: the calls with their operator name and input dims.
CREATE VIEW op_roofline_call AS
SELECT r.matmul, r.op_id, r.run_id, r.rank, r.device, s.text AS name,
  r.kind, d.text AS dims, r.dtype, r.flops, r.bytes, r.gpu_ns, r.sum_ns,
  r.n_gpu, r.gpu, r.peak, r.peak_tflops, r.mem_tbps
FROM op_roofline_core r
JOIN op_sig g ON g.id = r.sig_id
JOIN string s ON s.id = g.name_id
LEFT JOIN string d ON d.id = g.dims_id;

CREATE VIEW op_metric_roof_calc AS
WITH f AS MATERIALIZED (
  SELECT run_id, fam, sum(roof_ns) AS roof_ns,
    sum(max(0, gpu_ns - roof_ns)) AS over_ns, sum(gpu_ns) AS gpu_ns
  FROM (
    SELECT run_id, CASE WHEN kind GLOB 'gemm*' THEN 'gemm'
                        ELSE 'attention' END AS fam, gpu_ns,
      max(flops / (peak_tflops * 1e3), bytes / (mem_tbps * 1e3)) AS roof_ns
    FROM op_roofline_core
    -- +run_id: the rowid range, not the op_gpu_time_run index (a lookup
    -- a call); coalesce: a filter SQLite reads as "not NULL" turns the
    -- LEFT JOIN of the device spec into a join it may run first
    WHERE +run_id IN (SELECT run_id FROM op_target)
      AND op_id BETWEEN
        (SELECT min((SELECT min(id) FROM cpu_op c WHERE c.run_id = o.run_id))
         FROM op_target o)
        AND
        (SELECT max((SELECT max(id) FROM cpu_op c WHERE c.run_id = o.run_id))
         FROM op_target o)
      AND peak_tflops > 0 AND coalesce(mem_tbps, 0) > 0
      AND matmul AND (kind GLOB 'gemm*' OR kind GLOB 'attention*'))
  GROUP BY +run_id, fam
)
SELECT run_id, fam || '_efficiency_pct' AS metric,
  100.0 * roof_ns / gpu_ns AS value FROM f
UNION ALL
SELECT run_id, fam || '_recoverable_ms', over_ns / 1e6 FROM f
UNION ALL
SELECT run_id, fam || '_time_ms', gpu_ns / 1e6 FROM f;

CREATE VIEW op_metric_calc AS
SELECT run_id, metric, value FROM op_metric_roof_calc
UNION ALL
SELECT run_id, metric, value FROM op_metric_launch_calc
UNION ALL
SELECT run_id, metric, value FROM op_metric_memcpy_calc;
