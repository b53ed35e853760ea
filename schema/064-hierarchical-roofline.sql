-- 064-hierarchical-roofline.sql — the roofline of an operator call in two
-- memory tiers, L2 and HBM, the way the hierarchical roofline of the
-- NERSC / Berkeley work does it (each memory level its own bandwidth
-- ceiling), and durations recorded in whole µs taken at their precision
-- (issue 32 point 5: 19 op-roofline rows above 100 % of the HBM roof on
-- the A100 and V100 fixtures, up to 142 %).
--
-- Why: every byte a kernel reads or writes passes the L2, and part of
-- them may be served there without touching HBM (an optimizer's
-- momentum buffer or a gradient the op before just wrote): V100
-- `add_ [[256,256,3,3],...]` moves 3 x 2.36 MB in ~6 µs, 1.19 TB/s on a
-- 0.9 TB/s part.  The rule, per call (C = the GPU's L2 capacity):
--   footprint F = the distinct bytes the call touches (its tensors once:
--                 an in-place output is its input, op_sig_model.footprint)
--   L2 time     = bytes / L2 bandwidth          (every byte passes L2)
--   HBM time    = 0 when F <= C (all of it can sit in L2: tier l2),
--                 else (bytes - C) / HBM bandwidth (at most one L2's worth
--                 of its traffic is served without HBM)
--   roof        = max(FLOPs / peak, L2 time, HBM time); tier = the memory
--                 level of the larger of the two memory times ('l2' or
--                 'hbm'); bound = 'compute' when FLOPs / peak is the max.
--   A GPU without L2 figures keeps the HBM roof alone (bytes / HBM bw).
-- Whole µs: Kineto of 2021 (the resnet50, control and v100 fixtures)
-- records ts and dur in whole µs, truncated: a recorded duration can be
-- up to 1 µs short of the real one.  A trace file records whole µs when
-- every GPU row of it has a whole-µs duration (a ns trace has a 1 in
-- 1,000 chance a row, so a file of them never passes);
-- op_gpu_time.whole_us counts the call's GPU intervals when its file
-- does (0 otherwise), and the efficiency divides by gpu_ns + 1 µs per
-- such interval (slack_ns): the lowest efficiency the record allows,
-- never above 100 % by truncation alone.  The op-roofline rows say so in
-- dur_res.
-- One definition: op_roofline_core computes roof_ns, tier, bound and
-- slack_ns; op-roofline, op-kinds, the GEMM / attention efficiency
-- metrics and the HTML roofline read them.

-- ------------------------------------------------------------------
-- L2 per GPU.  l2_mb: capacity (MiB) of the last cache in front of
-- device memory; l2_tbps: the L2's peak bandwidth = bytes per clock x
-- boost clock.  Boost clock: the row's FP32 peak / (2 x FP32 cores), the
-- clock the datasheet's own FP32 figure is computed at.
-- Sources:
--   [VoltaWP]  NVIDIA Tesla V100 GPU Architecture whitepaper, Table 1:
--              L2 cache 6,144 KB; 5,120 FP32 cores.
--   [AmpereWP] NVIDIA A100 Tensor Core GPU Architecture whitepaper,
--              p. 35: "The A100 L2 read bandwidth is 5120 Bytes/clk,
--              compared to V100 L2 cache read bandwidth of 2048
--              Bytes/clk"; L2 40 MB (40,960 KB); 6,912 FP32 cores.
--   [HopperWP] NVIDIA H100 Tensor Core GPU Architecture whitepaper,
--              Table 3: L2 50 MB (SXM5 and PCIe); 128 FP32 cores per SM,
--              132 SMs (SXM5, NVL) and 114 (PCIe).  NVIDIA publishes no
--              L2 bytes/clock for Hopper: A100's 5,120 B/clk is used, as
--              the hardware table of PMC10448217 (Table 3: H100 8,986
--              GB/s at 1,755 MHz) does; microbenchmarks measure less
--              (Luo et al., "Benchmarking and Dissecting the Nvidia Hopper
--              GPU Architecture", arXiv 2402.13499, on an H800 PCIe), so
--              the figure is a ceiling, not a typical rate.
--   [H200]     H200: the H100 SXM5 die (50 MB L2, 132 SMs) with HBM3e.
--   [B200]     B200: L2 126 MB over its two dies (Chips and Cheese,
--              "Nvidia's B200: Keeping the CUDA Juggernaut Rolling"), 148
--              SMs; no published bytes/clock: twice Hopper's 5,120 B/clk
--              (two dies), a ceiling.
--   [CDNA2]    AMD CDNA 2 (MI250/MI250X): 8 MB L2 per GCD, 32 channels;
--              ROCm Compute Profiler's L2 peak is 128 B per channel per
--              clock x channels x peak engine clock (1.7 GHz).
--   [CDNA3]    AMD CDNA 3 (MI300X): 4 MB L2 per XCD (16 channels of 128
--              B/clk, 8 XCDs, 2.1 GHz: 34.4 TB/s, the level every access
--              passes) in front of the 256 MB Infinity Cache: capacity
--              is the Infinity Cache's, bandwidth the L2s'.
--   [Turing]   GeForce RTX 2080 Ti: 5.5 MB L2 (Turing whitepaper); no
--              public L2 bandwidth: no L2 tier.
ALTER TABLE gpu_spec ADD COLUMN l2_mb REAL;      -- MiB; NULL: no L2 tier
ALTER TABLE gpu_spec ADD COLUMN l2_tbps REAL;    -- TB/s; NULL: no L2 tier
ALTER TABLE gpu_spec ADD COLUMN l2_source TEXT;

UPDATE gpu_spec SET l2_mb = 6, l2_tbps = 2048 * (14.0e12 / (2 * 5120)) / 1e12,
  l2_source = '[VoltaWP] 6,144 KB; [AmpereWP] 2,048 B/clk x 1.367 GHz'
WHERE gpu = 'V100 PCIe';
UPDATE gpu_spec SET l2_mb = 6, l2_tbps = 2048 * (15.7e12 / (2 * 5120)) / 1e12,
  l2_source = '[VoltaWP] 6,144 KB; [AmpereWP] 2,048 B/clk x 1.533 GHz'
WHERE gpu = 'V100 SXM2';
UPDATE gpu_spec SET l2_mb = 40,
  l2_tbps = 5120 * (19.5e12 / (2 * 6912)) / 1e12,
  l2_source = '[AmpereWP] 40,960 KB; 5,120 B/clk x 1.41 GHz'
WHERE gpu GLOB 'A100 *';
UPDATE gpu_spec SET l2_mb = 50,
  l2_tbps = 5120 * (51e12 / (2 * 114 * 128)) / 1e12,
  l2_source = '[HopperWP] 50 MB; 5,120 B/clk (as A100) x 1.748 GHz'
WHERE gpu = 'H100 PCIe';
UPDATE gpu_spec SET l2_mb = 50,
  l2_tbps = 5120 * (60e12 / (2 * 132 * 128)) / 1e12,
  l2_source = '[HopperWP] 50 MB; 5,120 B/clk (as A100) x 1.776 GHz'
WHERE gpu = 'H100 NVL';
UPDATE gpu_spec SET l2_mb = 50,
  l2_tbps = 5120 * (67e12 / (2 * 132 * 128)) / 1e12,
  l2_source = '[HopperWP] 50 MB; 5,120 B/clk (as A100) x 1.983 GHz'
WHERE gpu IN ('H100 SXM', 'H200 SXM');
UPDATE gpu_spec SET l2_mb = 126,
  l2_tbps = 2 * 5120 * (75e12 / (2 * 148 * 128)) / 1e12,
  l2_source = '[B200] 126 MB; 2 dies x 5,120 B/clk x 1.979 GHz'
WHERE gpu = 'B200 (HGX)';
UPDATE gpu_spec SET l2_mb = 8, l2_tbps = 32 * 128 * 1.7e9 / 1e12,
  l2_source = '[CDNA2] 8 MB per GCD; 32 channels x 128 B/clk x 1.7 GHz'
WHERE gpu IN ('MI250X (one GCD)', 'MI250 (one GCD)');
UPDATE gpu_spec SET l2_mb = 256, l2_tbps = 8 * 16 * 128 * 2.1e9 / 1e12,
  l2_source = '[CDNA3] 256 MB Infinity Cache; L2 8 XCDs x 16 channels'
              || ' x 128 B/clk x 2.1 GHz'
WHERE gpu = 'MI300X';
UPDATE gpu_spec SET l2_mb = NULL, l2_tbps = NULL,
  l2_source = '[Turing] 5.5 MB; no public L2 bandwidth: HBM roof only'
WHERE gpu = 'GeForce RTX 2080 Ti';

DROP VIEW device_spec;
CREATE VIEW device_spec AS
SELECT d.run_id, d.rank, d.device, d.name, s.gpu, s.fp32, s.tf32, s.bf16,
  s.fp16, s.fp8, s.int8, s.mem_tbps, s.l2_mb, s.l2_tbps
FROM device d JOIN gpu_spec s ON s.rowid = coalesce((
  SELECT s3.rowid FROM gpu_spec_cu c JOIN gpu_spec s3 ON s3.gpu = c.gpu
  WHERE d.name GLOB c.pattern AND c.num_sms = d.num_sms
  ORDER BY s3.priority, s3.rowid LIMIT 1), (
  SELECT s2.rowid FROM gpu_spec s2 WHERE d.name GLOB s2.pattern
  ORDER BY s2.priority, s2.rowid LIMIT 1));

-- ------------------------------------------------------------------
-- The footprint of a signature: the distinct bytes its call touches.
-- Equal to bytes but for in-place streaming ops (a name ending in '_'
-- that is not write-only, op_write_first): `add_(self, other)` reads self
-- and other and writes self, 3 tensors of traffic, 2 of footprint.
ALTER TABLE op_sig_model ADD COLUMN footprint REAL;

DROP VIEW op_stream;
CREATE VIEW op_stream AS
WITH kn AS MATERIALIZED (           -- each name's kind once, not per call
  SELECT k.name_id, k.name, k.kind, kc.flops_per_elem AS fpe,
    k.name IN (SELECT name FROM op_write_first) AS wf
  FROM op_name_kind k JOIN op_kind_cost kc ON kc.kind = k.kind
  WHERE k.name_id IN (SELECT name_id FROM op_sig_scope)
),
x AS MATERIALIZED (
  SELECT o.run_id, o.id AS op_id, o.rank, kn.name, kn.kind, kn.fpe, kn.wf,
    d.text AS dims, t.text AS types, e.key AS i, e.value AS shape,
    EXISTS (SELECT 1 FROM op_out_arg a WHERE kn.name GLOB a.pattern
            AND a.arg = e.key) AS out_arg,
    coalesce(json_extract(e.value, '$[0]'), 1)
      * coalesce(json_extract(e.value, '$[1]'), 1)
      * coalesce(json_extract(e.value, '$[2]'), 1)
      * coalesce(json_extract(e.value, '$[3]'), 1)
      * coalesce(json_extract(e.value, '$[4]'), 1)
      * coalesce(json_extract(e.value, '$[5]'), 1)
      * coalesce(json_extract(e.value, '$[6]'), 1)
      * coalesce(json_extract(e.value, '$[7]'), 1) AS n
  FROM op_sig_scope o JOIN kn ON kn.name_id = o.name_id
  JOIN string d ON d.id = o.input_dims_id
  JOIN string t ON t.id = o.input_types_id, json_each(d.text) e
  WHERE json_valid(d.text) AND json_valid(t.text) AND e.type = 'array'
    AND json_extract(t.text, '$[' || e.key || ']')
        IN (SELECT type FROM op_dtype)
),
-- the broadcast shape of the tensors read by an elementwise op (063)
bd AS MATERIALIZED (
  SELECT x.op_id, json_array_length(x.shape) - 1 - s.key AS r,
    max(s.value) AS v, min(s.type = 'integer') AS flat
  FROM x, json_each(x.shape) s
  WHERE NOT x.out_arg AND x.kind = 'elementwise'
  GROUP BY x.op_id, json_array_length(x.shape) - 1 - s.key
),
b AS MATERIALIZED (
  SELECT op_id, CASE WHEN min(flat) AND max(r) < 8 THEN
    coalesce(max(CASE r WHEN 0 THEN v END), 1)
      * coalesce(max(CASE r WHEN 1 THEN v END), 1)
      * coalesce(max(CASE r WHEN 2 THEN v END), 1)
      * coalesce(max(CASE r WHEN 3 THEN v END), 1)
      * coalesce(max(CASE r WHEN 4 THEN v END), 1)
      * coalesce(max(CASE r WHEN 5 THEN v END), 1)
      * coalesce(max(CASE r WHEN 6 THEN v END), 1)
      * coalesce(max(CASE r WHEN 7 THEN v END), 1) END AS n_out
  FROM bd GROUP BY op_id
),
y AS MATERIALIZED (
  SELECT run_id, op_id, min(rank) AS rank, min(name) AS name,
    min(kind) AS kind, min(dims) AS dims, min(types) AS types,
    min(fpe) AS fpe, max(wf) AS wf,
    sum(CASE WHEN out_arg THEN 0 ELSE n END) AS sum_n,
    max(CASE WHEN out_arg THEN 0 ELSE n END) AS max_n,
    max(CASE WHEN out_arg THEN n ELSE 0 END) AS out_n,
    min(i) AS i0, sum(CASE WHEN i = 0 THEN n ELSE 0 END) AS n0
  FROM x GROUP BY run_id, op_id
),
z AS (
  SELECT y.*, max(max_n, out_n, coalesce(b.n_out, 0)) AS n_w,
    (SELECT size FROM op_dtype
     WHERE type = json_extract(types, '$[' || i0 || ']')) AS sz,
    name GLOB '*_' AND NOT wf AS inplace
  FROM y LEFT JOIN b ON b.op_id = y.op_id
)
SELECT op_id, run_id, rank, name, kind, dims,
  json_extract(types, '$[' || i0 || ']') AS dtype,
  fpe * n_w AS flops,
  1.0 * (sum_n - CASE WHEN wf THEN n0 ELSE 0 END + n_w) * sz AS bytes,
  1.0 * (sum_n - CASE WHEN wf THEN n0 ELSE 0 END
         + CASE WHEN inplace THEN 0 ELSE n_w END) * sz AS footprint
FROM z;

DROP VIEW op_sig_model_calc;
CREATE VIEW op_sig_model_calc AS
SELECT g.op_id AS sig_id, 1 AS matmul, k.kind, g.dtype, g.flops, g.bytes,
  g.bytes AS footprint
FROM op_gemm g JOIN op_sig o ON o.id = g.op_id
JOIN op_name_kind k ON k.name_id = o.name_id
UNION ALL
SELECT op_id, 1, kind, dtype, flops, bytes, bytes FROM op_sdpa
UNION ALL
SELECT op_id, 0, kind, dtype, flops, bytes, footprint FROM op_stream
UNION ALL
SELECT op_id, 0, kind, dtype, flops, bytes, bytes FROM op_conv_model
UNION ALL
SELECT op_id, 1, kind, dtype, flops, bytes, bytes FROM op_sdpa_bwd
UNION ALL
SELECT op_id, 0, kind, dtype, flops, bytes, bytes FROM op_gather_model
UNION ALL
SELECT op_id, 0, kind, dtype, flops, bytes, bytes FROM op_index_select_model;

DELETE FROM op_sig_model;
UPDATE op_sig SET modeled = 0;
INSERT INTO op_sig_model SELECT * FROM op_sig_model_calc;
UPDATE op_sig SET modeled = 1;

-- ------------------------------------------------------------------
-- Whole-µs intervals per call: written by the writer (op_store.c) and
-- by op_call_time_calc, its definition.
ALTER TABLE op_gpu_time ADD COLUMN whole_us INTEGER NOT NULL DEFAULT 0;

DROP VIEW op_call_time_calc;
CREATE VIEW op_call_time_calc AS
WITH fw AS MATERIALIZED (        -- the files that record whole µs
  SELECT file_id FROM (
    SELECT file_id, dur FROM kernel
    WHERE run_id IN (SELECT run_id FROM op_target)
    UNION ALL
    SELECT file_id, dur FROM gpu_mem_op
    WHERE run_id IN (SELECT run_id FROM op_target))
  GROUP BY file_id HAVING min(dur % 1000 = 0) = 1
),
tn AS MATERIALIZED (
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
   WHERE o.id = op_id) AS sig_id,
  CASE WHEN (SELECT file_id FROM cpu_op WHERE id = op_id)
            IN (SELECT file_id FROM fw) THEN count(*) ELSE 0 END AS whole_us
FROM w GROUP BY run_id, op_id;

-- the calls stored before this file, from the same rule
INSERT INTO op_target SELECT id FROM run;
CREATE TEMP TABLE op_whole_us(op_id INTEGER PRIMARY KEY, n INTEGER);
INSERT INTO temp.op_whole_us SELECT op_id, whole_us FROM op_call_time_calc;
DELETE FROM op_target;
UPDATE op_gpu_time SET whole_us = (SELECT n FROM temp.op_whole_us w
                                   WHERE w.op_id = op_gpu_time.op_id)
WHERE op_id IN (SELECT op_id FROM temp.op_whole_us);
DROP TABLE temp.op_whole_us;

-- ------------------------------------------------------------------
-- The roofline of each call: 029's columns, then the tiers.
DROP VIEW op_metric_calc;
DROP VIEW op_metric_roof_calc;
DROP VIEW op_roofline_call;
DROP VIEW op_roofline_core;

CREATE VIEW op_roofline_core AS
WITH dsm AS MATERIALIZED (       -- GLOB once a GPU, of the runs in scope
  SELECT * FROM device_spec WHERE run_id IN (SELECT run_id FROM op_scope)),
c AS (
  SELECT m.matmul, t.op_id, t.run_id, t.rank, t.device, t.sig_id,
    m.kind, m.dtype, m.flops, m.bytes, m.footprint, t.union_ns AS gpu_ns,
    t.sum_ns, t.n_gpu, t.whole_us,
    ds.gpu, CASE WHEN dt.peak = 'fp32' AND t.tf32 AND ds.tf32 > 0
                 THEN 'tf32' ELSE dt.peak END AS peak,
    ds.fp32, ds.tf32, ds.bf16, ds.fp16, ds.fp8, ds.int8, ds.mem_tbps,
    CASE WHEN ds.l2_mb > 0 AND ds.l2_tbps > 0 THEN ds.l2_mb * 1048576.0
    END AS l2_bytes,
    CASE WHEN ds.l2_mb > 0 AND ds.l2_tbps > 0 THEN ds.l2_tbps END AS l2_tbps
  FROM op_gpu_time t JOIN op_sig_model m ON m.sig_id = t.sig_id
  LEFT JOIN op_dtype dt ON dt.type = m.dtype
  LEFT JOIN dsm ds ON ds.run_id = t.run_id AND ds.rank = t.rank
    AND ds.device = t.device
  WHERE t.union_ns > 0 AND t.host_copies = 0
),
p AS (
  SELECT c.*,
    CASE peak WHEN 'fp32' THEN fp32 WHEN 'tf32' THEN tf32 WHEN 'bf16'
      THEN bf16 WHEN 'fp16' THEN fp16 WHEN 'fp8' THEN fp8 WHEN 'int8'
      THEN int8 END AS peak_tflops,
    -- bytes that must cross HBM: none when the footprint fits in L2
    CASE WHEN mem_tbps IS NULL THEN NULL
         WHEN l2_bytes IS NULL THEN bytes
         WHEN footprint <= l2_bytes THEN 0.0
         ELSE max(0.0, bytes - l2_bytes) END AS hbm_bytes
  FROM c
),
q AS (
  SELECT p.*,
    CASE WHEN peak_tflops > 0 AND mem_tbps > 0 THEN
      flops / (peak_tflops * 1e3) END AS compute_ns,
    CASE WHEN peak_tflops > 0 AND mem_tbps > 0 THEN
      max(coalesce(bytes / (l2_tbps * 1e3), 0.0),
          hbm_bytes / (mem_tbps * 1e3)) END AS mem_ns,
    CASE WHEN peak_tflops > 0 AND mem_tbps > 0 THEN
      CASE WHEN coalesce(bytes / (l2_tbps * 1e3), 0.0)
                > hbm_bytes / (mem_tbps * 1e3)
           THEN 'l2' ELSE 'hbm' END END AS tier
  FROM p
)
SELECT matmul, op_id, run_id, rank, device, sig_id, kind, dtype, flops,
  bytes, gpu_ns, sum_ns, n_gpu, gpu, peak, peak_tflops, mem_tbps,
  footprint, l2_bytes, l2_tbps, hbm_bytes, tier,
  max(compute_ns, mem_ns) AS roof_ns,
  CASE WHEN compute_ns >= mem_ns THEN 'compute'
       WHEN mem_ns IS NOT NULL THEN 'memory' END AS bound,
  1000 * whole_us AS slack_ns, whole_us
FROM q;

-- 029's columns with the operator name and input dims, then the tiers.
CREATE VIEW op_roofline_call AS
SELECT r.matmul, r.op_id, r.run_id, r.rank, r.device, s.text AS name,
  r.kind, d.text AS dims, r.dtype, r.flops, r.bytes, r.gpu_ns, r.sum_ns,
  r.n_gpu, r.gpu, r.peak, r.peak_tflops, r.mem_tbps, r.footprint,
  r.l2_bytes, r.l2_tbps, r.hbm_bytes, r.tier, r.roof_ns, r.bound,
  r.slack_ns, r.whole_us
FROM op_roofline_core r
JOIN op_sig g ON g.id = r.sig_id
JOIN string s ON s.id = g.name_id
LEFT JOIN string d ON d.id = g.dims_id;

-- GEMM and attention efficiency of a run: roofline time / GPU time (with
-- the whole-µs slack), as op-roofline and op-kinds compute it.
CREATE VIEW op_metric_roof_calc AS
WITH f AS MATERIALIZED (
  SELECT run_id, fam, sum(roof_ns) AS roof_ns,
    sum(max(0, gpu_ns - roof_ns)) AS over_ns, sum(gpu_ns) AS gpu_ns,
    sum(gpu_ns + slack_ns) AS time_ns
  FROM (
    SELECT run_id, CASE WHEN kind GLOB 'gemm*' THEN 'gemm'
                        ELSE 'attention' END AS fam, gpu_ns, slack_ns,
      roof_ns
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
  100.0 * roof_ns / time_ns AS value FROM f
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

-- Runs stored before this file: their GEMM and attention metrics again.
INSERT INTO op_target SELECT id FROM run;
DELETE FROM op_run_metric
WHERE metric GLOB 'gemm_*' OR metric GLOB 'attention_*';
INSERT INTO op_run_metric SELECT * FROM op_metric_roof_calc;
DELETE FROM op_target;
