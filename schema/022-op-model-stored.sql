-- 022-op-model-stored.sql — the operator model's per-call GPU time and
-- its headline numbers, stored per run at ingest (src/derive_op.c) so
-- that `operators`, `diff-ops`, `op-roofline`, and `trend`/`check`/
-- `diff-metrics` through run_metric read a few rows instead of sweeping
-- every kernel of every run (the views of 016 recomputed kernel unions:
-- about 45 ms a run, 9.5 s for `trend` over 200 runs).
--
-- One definition of an operator call's GPU time, used by every query:
-- the union of the intervals of the kernels, memsets and memcpys it
-- launched directly (kernel.op_id / gpu_mem_op.op_id: the innermost op
-- enclosing the launch; a GEMM's cuBLAS workspace memsets are its own).
-- Overlapping records (programmatic dependent launch, several streams)
-- count once; sum_ns keeps the plain sum for comparison.

-- The definition, over every run (the derive pass filters it by run_id:
-- run_id is in the window's partition, so the filter reaches the scans).
CREATE VIEW op_call_time_calc AS
WITH ev AS (
  SELECT run_id, op_id, device, ts, ts + dur AS te, 0 AS host
  FROM kernel WHERE op_id IS NOT NULL
  UNION ALL
  SELECT run_id, op_id, device, ts, ts + dur,
    kind = 'memcpy' AND coalesce(direction, '') <> 'DtoD'
  FROM gpu_mem_op WHERE op_id IS NOT NULL
),
w AS (
  SELECT run_id, op_id, device, ts, te, host,
    max(te) OVER (PARTITION BY run_id, op_id ORDER BY ts, te
                  ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev
  FROM ev
),
u AS (
  SELECT run_id, op_id, min(device) AS device, count(*) AS n_gpu,
    sum(max(0, te - max(ts, coalesce(prev, ts)))) AS union_ns,
    sum(te - ts) AS sum_ns, sum(host) AS host_copies
  FROM w GROUP BY run_id, op_id
)
SELECT u.op_id, u.run_id, o.rank, o.name_id, u.device, u.n_gpu, u.union_ns,
  u.sum_ns, u.host_copies
FROM u JOIN cpu_op o ON o.id = u.op_id;

-- Stored: one row per operator call that launched GPU work.
CREATE TABLE op_gpu_time(
  op_id INTEGER PRIMARY KEY,       -- cpu_op.id
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  name_id INTEGER NOT NULL,        -- cpu_op.name_id
  device INTEGER,                  -- lowest GPU ordinal of its records
  n_gpu INTEGER NOT NULL,          -- kernels, memsets and memcpys launched
  union_ns INTEGER NOT NULL,       -- |union of their intervals|
  sum_ns INTEGER NOT NULL,         -- sum of their durations
  host_copies INTEGER NOT NULL     -- memcpys to or from the host among them
);
CREATE INDEX op_gpu_time_run
  ON op_gpu_time(run_id, rank, name_id, union_ns, n_gpu);

-- op_call_time (016) now reads the stored rows; same columns.
DROP VIEW op_call_time;
CREATE VIEW op_call_time AS
SELECT op_id, run_id, rank, device, n_gpu, union_ns, sum_ns, host_copies
FROM op_gpu_time;

-- The roofline of a call that copies to or from the host is the PCIe or
-- NVLink link, not HBM: such calls are timed (op-kinds) but not modeled.
DROP VIEW op_roofline_call;
CREATE VIEW op_roofline_call AS
SELECT g.op_id, g.run_id, g.rank, t.device, g.name, g.kind, g.dims, g.dtype,
  g.flops, g.bytes, t.union_ns AS gpu_ns, t.sum_ns, t.n_gpu, ds.gpu,
  CASE dt.peak WHEN 'fp32' THEN ds.fp32 WHEN 'bf16' THEN ds.bf16
    WHEN 'fp16' THEN ds.fp16 WHEN 'fp8' THEN ds.fp8 WHEN 'int8' THEN ds.int8
  END AS peak_tflops,
  ds.mem_tbps
FROM op_model g JOIN op_call_time t ON t.op_id = g.op_id
LEFT JOIN op_dtype dt ON dt.type = g.dtype
LEFT JOIN device_spec ds ON ds.run_id = g.run_id AND ds.rank = g.rank
  AND ds.device = t.device
WHERE t.union_ns > 0 AND t.host_copies = 0;

-- Headline numbers, computed (op_metric_calc) and stored per run at
-- ingest (op_run_metric; op_metric reads it):
--   gemm_efficiency_pct   sum of roofline times / sum of GPU times of the
--                         GEMM calls with a spec (time-weighted mean of
--                         % of roofline)
--   gemm_recoverable_ms   sum of (GPU time - roofline time) of those calls
--   gemm_time_ms          their GPU time (kernel union per call)
--   attention_efficiency_pct, attention_recoverable_ms,
--   attention_time_ms     the same for attention (forward and backward)
--   kernels_without_launch, kernels_without_launch_ms   all ranks
--   exposed_memcpy_ms     copy time no kernel hides, all ranks and GPUs
CREATE VIEW op_metric_calc AS
WITH r AS (
  SELECT run_id, CASE WHEN kind GLOB 'gemm*' THEN 'gemm'
                      ELSE 'attention' END AS fam, gpu_ns,
    max(flops / (peak_tflops * 1e3), bytes / (mem_tbps * 1e3)) AS roof_ns
  FROM op_roofline_call WHERE peak_tflops > 0 AND mem_tbps > 0
    AND (kind GLOB 'gemm*' OR kind GLOB 'attention*')
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
  FROM kernel_unlaunched GROUP BY run_id
UNION ALL
SELECT run_id, 'kernels_without_launch_ms', sum(ns) / 1e6
  FROM kernel_unlaunched GROUP BY run_id
UNION ALL
SELECT run_id, 'exposed_memcpy_ms', sum(exposed_ns) / 1e6
  FROM memcpy_exposed GROUP BY run_id;

CREATE TABLE op_run_metric(
  run_id INTEGER NOT NULL,
  metric TEXT NOT NULL,
  value REAL
);
CREATE INDEX op_run_metric_run ON op_run_metric(run_id, metric);

DROP VIEW op_metric;
CREATE VIEW op_metric AS
SELECT run_id, metric, value FROM op_run_metric;

-- op_kind (016) listed the names of every cpu_op row of every run; the
-- per-run summary has the same names in a few hundred rows a run.
DROP VIEW op_kind;
CREATE VIEW op_kind AS
SELECT s.id AS name_id, s.text AS name, coalesce((
  SELECT r.kind FROM op_kind_rule r WHERE s.text GLOB r.pattern
  ORDER BY r.priority, r.rowid LIMIT 1), 'unknown') AS kind
FROM string s WHERE s.id IN (SELECT DISTINCT name_id FROM cpu_op_summary);

-- Runs ingested before this file.
INSERT INTO op_gpu_time SELECT * FROM op_call_time_calc;
INSERT INTO op_run_metric SELECT * FROM op_metric_calc;

-- run_metric (020) with the operator model's arm.
DROP VIEW IF EXISTS run_metric;
CREATE VIEW run_metric AS
SELECT run_id, metric, value FROM run_metric_core
UNION ALL
SELECT run_id, metric, value FROM hta_metric
UNION ALL
SELECT run_id, metric, value FROM op_metric;

INSERT OR IGNORE INTO metric_direction VALUES
  ('attention_efficiency_pct', 47, -1);

