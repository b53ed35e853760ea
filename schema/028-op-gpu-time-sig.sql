-- 028-op-gpu-time-sig.sql — each operator call's signature stored with
-- its GPU time, so that the roofline reads the calls that launched GPU
-- work, not every call; op_run_metric's arms as three views.
--
-- op_roofline_call (027) joined op_gpu_time to op_model, which reaches
-- op_sig through each call's cpu_op row (a lookup of the call, then of
-- the four string ids in op_sig's unique index): on the 10x A100 bench
-- trace the roofline arm of op_metric_calc was 0.19 s of CPU of the
-- 1.0 s derive op.  Here op_gpu_time keeps the call's op_sig.id
-- (sig_id), op_call_time_calc computes it (so op_sig is filled before
-- op_gpu_time: derive_op.c), and op_roofline_call joins
-- op_gpu_time -> op_sig_model by it; columns as before.
--
-- op_metric_calc is now the union of op_metric_roof_calc (GEMM and
-- attention efficiency), op_metric_launch_calc (kernels without a
-- launch) and op_metric_memcpy_calc (exposed memcpy time), same
-- definitions, so that derive_op.c can evaluate some of them from the
-- rows it kept while loading (src/op_store.c, src/derive_op.c: equal to
-- the views' rows, tests/e2e/test_op_store.py) and the others here.

ALTER TABLE op_gpu_time ADD COLUMN sig_id INTEGER;  -- op_sig.id

DROP VIEW op_metric_calc;
DROP VIEW op_roofline_call;
DROP VIEW op_call_time_calc;

-- 027's definition, with the call's signature.
CREATE VIEW op_call_time_calc AS
WITH tn AS MATERIALIZED (
  SELECT s.id AS name_id, EXISTS (SELECT 1 FROM op_tf32_kernel p
                                  WHERE lower(s.text) GLOB p.pattern) AS tf32
  FROM string s WHERE s.id IN (
    SELECT name_id FROM kernel WHERE run_id IN (SELECT run_id FROM op_target)
      AND op_id IS NOT NULL)
),
ev AS (
  SELECT k.run_id, k.op_id, k.device, k.ts, k.ts + k.dur AS te, 0 AS host,
    (SELECT tf32 FROM tn WHERE tn.name_id = k.name_id) AS tf32
  FROM kernel k WHERE k.run_id IN (SELECT run_id FROM op_target)
    AND k.op_id IS NOT NULL
  UNION ALL
  SELECT run_id, op_id, device, ts, ts + dur,
    kind = 'memcpy' AND coalesce(direction, '') <> 'DtoD', 0
  FROM gpu_mem_op WHERE run_id IN (SELECT run_id FROM op_target)
    AND op_id IS NOT NULL
),
w AS (
  SELECT run_id, op_id, device, ts, te, host, tf32,
    max(te) OVER (PARTITION BY run_id, op_id ORDER BY ts, te
                  ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev
  FROM ev
)
SELECT op_id, run_id,
  (SELECT rank FROM cpu_op WHERE id = op_id) AS rank,
  (SELECT name_id FROM cpu_op WHERE id = op_id) AS name_id,
  min(device) AS device, count(*) AS n_gpu,
  sum(max(0, te - max(ts, coalesce(prev, ts)))) AS union_ns,
  sum(te - ts) AS sum_ns, sum(host) AS host_copies, max(tf32) AS tf32,
  (SELECT g.id FROM cpu_op o JOIN op_sig g ON g.name_id = o.name_id
     AND g.dims_id = coalesce(o.input_dims_id, 0)
     AND g.types_id = coalesce(o.input_types_id, 0)
     AND g.conc_id = coalesce(o.concrete_inputs_id, 0)
   WHERE o.id = op_id) AS sig_id
FROM w GROUP BY run_id, op_id;

CREATE VIEW op_roofline_call AS
WITH dsm AS MATERIALIZED (       -- GLOB once a GPU, of the runs in scope
  SELECT * FROM device_spec WHERE run_id IN (SELECT run_id FROM op_scope)),
c AS (
  SELECT m.matmul, t.op_id, t.run_id, t.rank, t.device, s.text AS name,
    m.kind, d.text AS dims, m.dtype, m.flops, m.bytes, t.union_ns AS gpu_ns,
    t.sum_ns, t.n_gpu,
    ds.gpu, CASE WHEN dt.peak = 'fp32' AND t.tf32 AND ds.tf32 > 0
                 THEN 'tf32' ELSE dt.peak END AS peak,
    ds.fp32, ds.tf32, ds.bf16, ds.fp16, ds.fp8, ds.int8, ds.mem_tbps
  FROM op_gpu_time t JOIN op_sig_model m ON m.sig_id = t.sig_id
  JOIN op_sig g ON g.id = t.sig_id
  JOIN string s ON s.id = g.name_id
  LEFT JOIN string d ON d.id = g.dims_id
  LEFT JOIN op_dtype dt ON dt.type = m.dtype
  LEFT JOIN dsm ds ON ds.run_id = t.run_id AND ds.rank = t.rank
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

CREATE VIEW op_metric_roof_calc AS
WITH r AS MATERIALIZED (
  SELECT run_id, CASE WHEN kind GLOB 'gemm*' THEN 'gemm'
                      ELSE 'attention' END AS fam, gpu_ns,
    max(flops / (peak_tflops * 1e3), bytes / (mem_tbps * 1e3)) AS roof_ns
  FROM op_roofline_call
  WHERE run_id IN (SELECT run_id FROM op_target)
    -- coalesce: a filter SQLite reads as "not NULL" turns the LEFT JOIN
    -- of the device spec into a join it may run first (every call of the
    -- rank once per device of it)
    AND peak_tflops > 0 AND coalesce(mem_tbps, 0) > 0
    AND matmul AND (kind GLOB 'gemm*' OR kind GLOB 'attention*')
)
SELECT run_id, fam || '_efficiency_pct' AS metric,
  100.0 * sum(roof_ns) / sum(gpu_ns) AS value FROM r GROUP BY run_id, fam
UNION ALL
SELECT run_id, fam || '_recoverable_ms', sum(max(0, gpu_ns - roof_ns)) / 1e6
  FROM r GROUP BY run_id, fam
UNION ALL
SELECT run_id, fam || '_time_ms', sum(gpu_ns) / 1e6 FROM r
  GROUP BY run_id, fam;

CREATE VIEW op_metric_launch_calc AS
SELECT run_id, 'kernels_without_launch' AS metric, sum(kernels) AS value
  FROM kernel_unlaunched WHERE run_id IN (SELECT run_id FROM op_target)
  GROUP BY run_id
UNION ALL
SELECT run_id, 'kernels_without_launch_ms', sum(ns) / 1e6
  FROM kernel_unlaunched WHERE run_id IN (SELECT run_id FROM op_target)
  GROUP BY run_id;

CREATE VIEW op_metric_memcpy_calc AS
SELECT run_id, 'exposed_memcpy_ms' AS metric, sum(exposed_ns) / 1e6 AS value
  FROM memcpy_exposed_calc GROUP BY run_id;

CREATE VIEW op_metric_calc AS
SELECT run_id, metric, value FROM op_metric_roof_calc
UNION ALL
SELECT run_id, metric, value FROM op_metric_launch_calc
UNION ALL
SELECT run_id, metric, value FROM op_metric_memcpy_calc;

-- Runs ingested before this file.
UPDATE op_gpu_time SET sig_id = (
  SELECT g.id FROM cpu_op o JOIN op_sig g ON g.name_id = o.name_id
    AND g.dims_id = coalesce(o.input_dims_id, 0)
    AND g.types_id = coalesce(o.input_types_id, 0)
    AND g.conc_id = coalesce(o.concrete_inputs_id, 0)
  WHERE o.id = op_gpu_time.op_id);
