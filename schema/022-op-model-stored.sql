-- 022-op-model-stored.sql — the operator model's per-call GPU time and
-- its headline numbers, stored per run at ingest (src/analysis/derive_op.c) so
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

-- Kernels that run fp32 math on TF32 tensor cores say so in their name
-- (cuBLAS/cuDNN/CUTLASS: ampere_tf32_..., sm80_xmma_..._tf32f32_...,
-- cutlass_..._tf32gemm_..., xf32 on sm90), or by CUTLASS's instruction
-- shape: cutlass_80_tensorop_s1688gemm_... is an fp32 GEMM on the 16x8x8
-- TF32 MMA (on the A100 fixture it reaches 111 TFLOP/s, 5.7x the fp32
-- peak).  GLOB on the lower-case name.  A float GEMM whose call launched
-- one is held to the tf32 peak, other float calls to the fp32 peak.
CREATE TABLE op_tf32_kernel(pattern TEXT PRIMARY KEY);
INSERT INTO op_tf32_kernel VALUES ('*tf32*'), ('*xf32*'),
  ('*tensorop_s1688*');

-- The runs the *_calc views compute (the derive pass puts the run it
-- ingests here and empties it after; the backfill below puts every run).
-- SQLite does not push a run_id filter from outside down through an
-- aggregate over a window, so the views read the list at their scans,
-- where the run_id indexes serve it.
CREATE TABLE op_target(run_id INTEGER PRIMARY KEY);

-- The definition, over the runs of op_target.
CREATE VIEW op_call_time_calc AS
WITH ev AS (
  SELECT k.run_id, k.op_id, k.device, k.ts, k.ts + k.dur AS te, 0 AS host,
    EXISTS (SELECT 1 FROM string s, op_tf32_kernel p
            WHERE s.id = k.name_id AND lower(s.text) GLOB p.pattern) AS tf32
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
  sum(te - ts) AS sum_ns, sum(host) AS host_copies, max(tf32) AS tf32
FROM w GROUP BY run_id, op_id;

-- Exposed memcpy time (016's memcpy_exposed), over the runs of
-- op_target, for op_metric_calc; same definition.
CREATE VIEW memcpy_exposed_calc AS
WITH ev AS (
  SELECT run_id, rank, device, 'all' AS part, ts, ts + dur AS te
  FROM kernel WHERE run_id IN (SELECT run_id FROM op_target)
  UNION ALL
  SELECT run_id, rank, device, 'kernel', ts, ts + dur FROM kernel
  WHERE run_id IN (SELECT run_id FROM op_target)
  UNION ALL
  SELECT run_id, rank, device, 'all', ts, ts + dur FROM gpu_mem_op
  WHERE run_id IN (SELECT run_id FROM op_target) AND kind = 'memcpy'
  UNION ALL
  SELECT run_id, rank, device, 'memcpy', ts, ts + dur FROM gpu_mem_op
  WHERE run_id IN (SELECT run_id FROM op_target) AND kind = 'memcpy'
),
w AS (
  SELECT run_id, rank, device, part, ts, te,
    max(te) OVER (PARTITION BY run_id, rank, device, part ORDER BY ts, te
                  ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev
  FROM ev
),
u AS (
  SELECT run_id, rank, device, part,
    sum(max(0, te - max(ts, coalesce(prev, ts)))) AS ns
  FROM w GROUP BY run_id, rank, device, part
)
SELECT a.run_id, a.rank, a.device, m.ns AS memcpy_ns,
  a.ns - coalesce(k.ns, 0) AS exposed_ns
FROM u a JOIN u m ON m.run_id = a.run_id AND m.rank = a.rank
  AND m.device IS a.device AND m.part = 'memcpy'
LEFT JOIN u k ON k.run_id = a.run_id AND k.rank = a.rank
  AND k.device IS a.device AND k.part = 'kernel'
WHERE a.part = 'all';

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
  host_copies INTEGER NOT NULL,    -- memcpys to or from the host among them
  tf32 INTEGER NOT NULL            -- 1: a kernel of op_tf32_kernel among them
);
CREATE INDEX op_gpu_time_run
  ON op_gpu_time(run_id, rank, name_id, union_ns, n_gpu);

-- op_call_time (016) now reads the stored rows; same columns.
DROP VIEW op_call_time;
CREATE VIEW op_call_time AS
SELECT op_id, run_id, rank, device, n_gpu, union_ns, sum_ns, host_copies,
  tf32
FROM op_gpu_time;

-- The roofline of a call that copies to or from the host is the PCIe or
-- NVLink link, not HBM: such calls are timed (op-kinds) but not modeled.
-- peak: the gpu_spec column used (a float call that ran a TF32 kernel:
-- tf32, when the GPU has TF32).
DROP VIEW op_roofline_call;
CREATE VIEW op_roofline_call AS
WITH dsm AS MATERIALIZED (SELECT * FROM device_spec),  -- GLOB once a GPU
c AS (
  SELECT g.op_id, g.run_id, g.rank, t.device, g.name, g.kind, g.dims,
    g.dtype, g.flops, g.bytes, t.union_ns AS gpu_ns, t.sum_ns, t.n_gpu,
    ds.gpu, CASE WHEN dt.peak = 'fp32' AND t.tf32 AND ds.tf32 > 0
                 THEN 'tf32' ELSE dt.peak END AS peak,
    ds.fp32, ds.tf32, ds.bf16, ds.fp16, ds.fp8, ds.int8, ds.mem_tbps
  FROM op_model g JOIN op_call_time t ON t.op_id = g.op_id
  LEFT JOIN op_dtype dt ON dt.type = g.dtype
  LEFT JOIN dsm ds ON ds.run_id = g.run_id AND ds.rank = g.rank
    AND ds.device = t.device
  WHERE t.union_ns > 0 AND t.host_copies = 0
)
SELECT op_id, run_id, rank, device, name, kind, dims, dtype, flops, bytes,
  gpu_ns, sum_ns, n_gpu, gpu, peak,
  CASE peak WHEN 'fp32' THEN fp32 WHEN 'tf32' THEN tf32 WHEN 'bf16' THEN bf16
    WHEN 'fp16' THEN fp16 WHEN 'fp8' THEN fp8 WHEN 'int8' THEN int8
  END AS peak_tflops,
  mem_tbps
FROM c;

-- Headline numbers, computed (op_metric_calc, over the runs of
-- op_target) and stored per run at ingest (op_run_metric; op_metric
-- reads it):
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
WITH r AS MATERIALIZED (
  SELECT run_id, CASE WHEN kind GLOB 'gemm*' THEN 'gemm'
                      ELSE 'attention' END AS fam, gpu_ns,
    max(flops / (peak_tflops * 1e3), bytes / (mem_tbps * 1e3)) AS roof_ns
  FROM op_roofline_call
  WHERE run_id IN (SELECT run_id FROM op_target)
    AND peak_tflops > 0 AND mem_tbps > 0
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
  FROM kernel_unlaunched WHERE run_id IN (SELECT run_id FROM op_target)
  GROUP BY run_id
UNION ALL
SELECT run_id, 'kernels_without_launch_ms', sum(ns) / 1e6
  FROM kernel_unlaunched WHERE run_id IN (SELECT run_id FROM op_target)
  GROUP BY run_id
UNION ALL
SELECT run_id, 'exposed_memcpy_ms', sum(exposed_ns) / 1e6
  FROM memcpy_exposed_calc GROUP BY run_id;

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

-- ------------------------------------------------------------------
-- More op kinds with FLOP and byte formulas, from "Input Dims", "Input
-- type" and "Concrete Inputs".  A call whose inputs the formula needs
-- are not recorded (no Concrete Inputs, a transposed convolution, an
-- unknown causal flag) is not modeled: unknown, never guessed.

INSERT INTO op_kind_rule VALUES
 ('vllm::unified_attention*', 27, 'attention_paged'),
 ('*paged_attention*', 27, 'attention_paged'),
 ('*moe_sum*', 43, 'moe_combine'),
 ('*moe_permute*', 43, 'moe_dispatch'), ('*moe_align*', 43, 'moe_dispatch'),
 ('*moe_unpermute*', 42, 'moe_combine'),
 ('*rotary_embedding*', 41, 'rope'),   -- not '*embedding*' (42)
 -- vLLM's KV-cache write (reshape_and_cache_flash), not attention: timed
 -- only (its cache tensors are the whole cache, not what it moves)
 ('*reshape_and_cache*', 25, 'kv_cache');

-- Convolutions: where each operator keeps its arguments.  Forward:
-- input [N,C,*S], weight [K,C/g,*R] at 0 and 1; backward
-- (convolution_backward): grad_output [N,K,*P], input, weight at 0, 1, 2
-- and output_mask (grad_input, grad_weight, grad_bias).
CREATE TABLE op_conv(
  name TEXT PRIMARY KEY,
  dir TEXT NOT NULL,               -- 'fwd' or 'bwd'
  bias_arg INTEGER,                -- fwd: the bias tensor (NULL: none)
  stride_arg INTEGER NOT NULL,
  pad_arg INTEGER NOT NULL,
  dil_arg INTEGER NOT NULL,
  transposed_arg INTEGER,          -- NULL: the op is never transposed
  mask_arg INTEGER                 -- bwd: output_mask
);
INSERT INTO op_conv VALUES
 ('aten::convolution', 'fwd', 2, 3, 4, 5, 6, NULL),
 ('aten::_convolution', 'fwd', 2, 3, 4, 5, 6, NULL),
 ('aten::conv1d', 'fwd', 2, 3, 4, 5, NULL, NULL),
 ('aten::conv2d', 'fwd', 2, 3, 4, 5, NULL, NULL),
 ('aten::conv3d', 'fwd', 2, 3, 4, 5, NULL, NULL),
 ('aten::cudnn_convolution', 'fwd', NULL, 3, 2, 4, NULL, NULL),
 ('aten::miopen_convolution', 'fwd', 2, 4, 3, 5, NULL, NULL),
 ('aten::convolution_backward', 'bwd', NULL, 4, 5, 6, 7, 10);

-- Forward, per output element of each of the K filters: C/g x prod(R)
-- multiply-adds; out_i = (S_i + 2 pad_i - dil_i (R_i - 1) - 1) / stride_i
-- + 1 (a one-element list applies to every spatial dim).
--   FLOPs = 2 N K prod(out) (C/g) prod(R)  (+ N K prod(out): the bias)
--   bytes = input + weight + output (+ bias) once, at the input's size
-- Backward: 2 N K prod(P) (C/g) prod(R) per gradient of input and of
-- weight asked for, + N K prod(P) for the bias gradient;
--   bytes = grad_output, input, weight read + the gradients written.
CREATE VIEW op_conv_model AS
WITH c AS (
  SELECT o.id AS op_id, o.run_id, o.rank, s.text AS name, v.dir,
    d.text AS dims, json_extract(t.text, '$[0]') AS dtype,
    CASE v.dir WHEN 'fwd' THEN json_extract(d.text, '$[0]')
      ELSE json_extract(d.text, '$[1]') END AS x,
    CASE v.dir WHEN 'fwd' THEN json_extract(d.text, '$[1]')
      ELSE json_extract(d.text, '$[2]') END AS w,
    CASE v.dir WHEN 'bwd' THEN json_extract(d.text, '$[0]') END AS go,
    json_array_length(json_extract(d.text, '$[' || v.bias_arg || ']'))
      AS has_bias,
    json_extract(ci.text, '$[' || v.stride_arg || ']') AS st,
    json_extract(ci.text, '$[' || v.pad_arg || ']') AS pd,
    json_extract(ci.text, '$[' || v.dil_arg || ']') AS dl,
    CASE WHEN v.transposed_arg IS NULL THEN 'False'
      ELSE json_extract(ci.text, '$[' || v.transposed_arg || ']') END AS tr,
    replace(replace(json_extract(ci.text, '$[' || v.mask_arg || ']'),
                    'True', '1'), 'False', '0') AS mask
  FROM cpu_op o JOIN string s ON s.id = o.name_id
  JOIN op_conv v ON v.name = s.text
  JOIN string d ON d.id = o.input_dims_id
  LEFT JOIN string t ON t.id = o.input_types_id
  JOIN string ci ON ci.id = o.concrete_inputs_id
  WHERE json_valid(d.text) AND json_valid(ci.text)
),
p AS (
  SELECT c.*, json_array_length(x) - 2 AS nd,
    json_extract(x, '$[0]') AS n, json_extract(w, '$[0]') AS k,
    json_extract(w, '$[1]') AS cg,
    coalesce(json_extract(w, '$[2]'), 1) * coalesce(json_extract(w, '$[3]'), 1)
      * coalesce(json_extract(w, '$[4]'), 1) AS rr,
    coalesce(json_extract(x, '$[2]'), 1) * coalesce(json_extract(x, '$[3]'), 1)
      * coalesce(json_extract(x, '$[4]'), 1) AS ss
  FROM c
  WHERE tr = 'False' AND json_array_length(w) = json_array_length(x)
    AND json_array_length(x) BETWEEN 3 AND 5
    AND (dir = 'fwd' AND json_valid(st) AND json_valid(pd) AND json_valid(dl)
         OR dir = 'bwd' AND json_array_length(go) = json_array_length(x)
            AND json_valid(mask) AND json_array_length(mask) = 3)
),
o AS (
  SELECT p.*,
    CASE WHEN dir = 'bwd' THEN
      coalesce(json_extract(go, '$[2]'), 1) * coalesce(json_extract(go, '$[3]'), 1)
        * coalesce(json_extract(go, '$[4]'), 1)
    ELSE (
      SELECT CASE WHEN count(*) = nd AND min(v) > 0 THEN
        max(CASE WHEN i = 0 THEN v END) * coalesce(max(CASE WHEN i = 1 THEN v END), 1)
          * coalesce(max(CASE WHEN i = 2 THEN v END), 1) END
      FROM (
        SELECT e.key AS i,
          (json_extract(x, '$[' || (2 + e.key) || ']')
           + 2 * coalesce(json_extract(pd, '$[' || e.key || ']'), json_extract(pd, '$[0]'))
           - coalesce(json_extract(dl, '$[' || e.key || ']'), json_extract(dl, '$[0]'))
             * (json_extract(w, '$[' || (2 + e.key) || ']') - 1) - 1)
          / coalesce(json_extract(st, '$[' || e.key || ']'), json_extract(st, '$[0]'))
          + 1 AS v
        FROM json_each(json_array(0, 1, 2)) e WHERE e.key < nd))
    END AS pq
  FROM p
)
SELECT op_id, run_id, rank, name, 'conv_' || dir AS kind, dims, dtype,
  CASE dir WHEN 'fwd' THEN
    2.0 * n * k * pq * cg * rr + CASE WHEN has_bias > 0 THEN 1.0 * n * k * pq ELSE 0 END
  ELSE 2.0 * n * k * pq * cg * rr
         * (json_extract(mask, '$[0]') + json_extract(mask, '$[1]'))
       + json_extract(mask, '$[2]') * 1.0 * n * k * pq END AS flops,
  CASE dir WHEN 'fwd' THEN
    1.0 * n * (ss * (json_extract(x, '$[1]')) + k * pq) + 1.0 * k * cg * rr
      + CASE WHEN has_bias > 0 THEN k ELSE 0 END
  ELSE (1.0 * n * k * pq + 1.0 * n * json_extract(x, '$[1]') * ss
          * (1 + json_extract(mask, '$[0]'))
        + 1.0 * k * cg * rr * (1 + json_extract(mask, '$[1]'))
        + json_extract(mask, '$[2]') * k) END
    * coalesce((SELECT size FROM op_dtype WHERE type = dtype), 4) AS bytes
FROM o WHERE pq > 0 AND n > 0 AND k > 0 AND cg > 0 AND rr > 0;

-- Attention backward ([B,H,L,D] layout): grad_out, q, k, v, out at 0-4;
-- five matmuls (Q·Kᵀ recomputed, dV, dP, dQ, dK):
--   FLOPs = 2 B H L S (3D + 2Dv), halved when is_causal is True
--   (2.5x the forward when D = Dv); the causal flag must be recorded
--   bytes = q, k, v, out, grad_out read + dq, dk, dv written
CREATE TABLE op_attention_bwd(
  name TEXT PRIMARY KEY,
  causal_arg INTEGER NOT NULL
);
INSERT INTO op_attention_bwd VALUES
 ('aten::_scaled_dot_product_flash_attention_backward', 11),
 ('aten::_scaled_dot_product_efficient_attention_backward', 11),
 ('aten::_scaled_dot_product_cudnn_attention_backward', 14);

CREATE VIEW op_sdpa_bwd AS
WITH c AS (
  SELECT o.id AS op_id, o.run_id, o.rank, s.text AS name, d.text AS dims,
    json_extract(t.text, '$[1]') AS dtype,
    json_extract(ci.text, '$[' || a.causal_arg || ']') AS causal,
    json_extract(d.text, '$[1]') AS q, json_extract(d.text, '$[2]') AS k,
    json_extract(d.text, '$[3]') AS v
  FROM cpu_op o JOIN string s ON s.id = o.name_id
  JOIN op_attention_bwd a ON a.name = s.text
  JOIN string d ON d.id = o.input_dims_id
  LEFT JOIN string t ON t.id = o.input_types_id
  JOIN string ci ON ci.id = o.concrete_inputs_id
  WHERE json_valid(d.text) AND json_valid(ci.text)
),
x AS (
  SELECT c.*,
    json_extract(q, '$[0]') AS b, json_extract(q, '$[1]') AS h,
    json_extract(q, '$[2]') AS l, json_extract(q, '$[3]') AS dq,
    json_extract(k, '$[1]') AS hk, json_extract(k, '$[2]') AS sk,
    json_extract(v, '$[3]') AS dv
  FROM c
  WHERE json_array_length(q) = 4 AND json_array_length(k) = 4
    AND json_array_length(v) = 4 AND causal IN ('True', 'False')
    AND json_extract(k, '$[3]') = json_extract(q, '$[3]')
)
SELECT op_id, run_id, rank, name, 'attention_bwd' AS kind, dims, dtype,
  2.0 * b * h * l * sk * (3 * dq + 2 * dv)
    * CASE causal WHEN 'True' THEN 0.5 ELSE 1 END AS flops,
  2.0 * (1.0 * b * h * l * dq + 1.0 * b * hk * sk * (dq + dv)
         + 1.0 * b * h * l * dv)
    * coalesce((SELECT size FROM op_dtype WHERE type = dtype), 4) AS bytes
FROM x WHERE b > 0 AND h > 0 AND l > 0 AND sk > 0 AND dq > 0 AND dv > 0;

-- Gathers and small fused kernels:
--   aten::embedding(weight [V,D], indices)   0 FLOPs; the n = numel(indices)
--     rows read and written, the indices read: 2 n D x size + n x idx size
--   _C::rotary_embedding / vllm::rotary_embedding(positions [T], query,
--     key, head_size, cos_sin_cache [P, rot], is_neox): rot of every head's
--     dims of q and k rotated, 3 FLOPs each (x cos - y sin); q and k read
--     and written in place, positions and one cache row per token read
--   _moe_C::moe_sum(input [T,k,H], output [T,H]) (MoE combine): k - 1 adds
--     per output element; input and output once
-- MoE dispatch (moe_align_block_size, moe_permute) and vLLM's paged
-- attention (its key lengths live in the attention metadata, not in the
-- inputs) stay unknown.
CREATE VIEW op_gather_model AS
-- c is read once, so a run_id filter from outside reaches the cpu_op scan
WITH c AS (
  SELECT o.id AS op_id, o.run_id, o.rank, s.text AS name, d.text AS dims,
    t.text AS types, ci.text AS conc,
    -- elements of inputs 1 and 2 (n2: 0 when input 2 is no tensor)
    coalesce(json_extract(d.text, '$[1][0]'), 1)
      * coalesce(json_extract(d.text, '$[1][1]'), 1)
      * coalesce(json_extract(d.text, '$[1][2]'), 1)
      * coalesce(json_extract(d.text, '$[1][3]'), 1) AS n1,
    CASE WHEN json_array_length(d.text, '$[2]') > 0 THEN
      coalesce(json_extract(d.text, '$[2][0]'), 1)
        * coalesce(json_extract(d.text, '$[2][1]'), 1)
        * coalesce(json_extract(d.text, '$[2][2]'), 1)
        * coalesce(json_extract(d.text, '$[2][3]'), 1) ELSE 0 END AS n2,
    -- element sizes of inputs 0, 1 and 4
    (SELECT size FROM op_dtype WHERE type = json_extract(t.text, '$[0]'))
      AS sz0,
    (SELECT size FROM op_dtype WHERE type = json_extract(t.text, '$[1]'))
      AS sz1,
    (SELECT size FROM op_dtype WHERE type = json_extract(t.text, '$[4]'))
      AS sz4
  FROM cpu_op o JOIN string s ON s.id = o.name_id
  JOIN string d ON d.id = o.input_dims_id
  JOIN string t ON t.id = o.input_types_id
  LEFT JOIN string ci ON ci.id = o.concrete_inputs_id
  WHERE s.text IN ('aten::embedding', '_C::rotary_embedding',
                   'vllm::rotary_embedding', '_moe_C::moe_sum')
    AND json_valid(d.text) AND json_valid(t.text)
)
SELECT op_id, run_id, rank, name,
  CASE name WHEN 'aten::embedding' THEN 'embedding'
    WHEN '_moe_C::moe_sum' THEN 'moe_combine' ELSE 'rope' END AS kind,
  dims,
  json_extract(types, CASE WHEN name IN ('aten::embedding',
    '_moe_C::moe_sum') THEN '$[0]' ELSE '$[1]' END) AS dtype,
  CASE name WHEN 'aten::embedding' THEN 0.0
    WHEN '_moe_C::moe_sum' THEN
      1.0 * json_extract(dims, '$[0][0]') * (json_extract(dims, '$[0][1]') - 1)
        * json_extract(dims, '$[0][2]')
    ELSE 3.0 * (n1 + n2) / json_extract(conc, '$[3]')
      * json_extract(dims, '$[4][1]') END AS flops,
  CASE name WHEN 'aten::embedding' THEN
      2.0 * n1 * json_extract(dims, '$[0][1]') * sz0 + 1.0 * n1 * sz1
    WHEN '_moe_C::moe_sum' THEN
      (1.0 * json_extract(dims, '$[0][0]') * json_extract(dims, '$[0][1]')
         * json_extract(dims, '$[0][2]') + n1) * sz0
    ELSE 2.0 * (n1 + n2) * sz1 + 8.0 * json_extract(dims, '$[0][0]')
      + 1.0 * json_extract(dims, '$[0][0]') * json_extract(dims, '$[4][1]')
        * sz4 END AS bytes
FROM c
WHERE CASE name
  WHEN 'aten::embedding' THEN json_array_length(dims, '$[0]') = 2
    AND json_array_length(dims, '$[1]') BETWEEN 1 AND 4
    AND sz0 > 0 AND sz1 > 0
  WHEN '_moe_C::moe_sum' THEN json_array_length(dims, '$[0]') = 3
    AND sz0 > 0
  ELSE json_valid(conc) AND CAST(json_extract(conc, '$[3]') AS INTEGER) > 0
    AND json_array_length(dims, '$[0]') = 1
    AND json_array_length(dims, '$[4]') = 2
    AND json_array_length(dims, '$[1]') BETWEEN 2 AND 3
    AND sz1 > 0 AND sz4 > 0 END;

-- Forward attention (016's op_sdpa) counted a call whose is_causal was
-- not recorded as not causal: now such a call is not modeled.
DROP VIEW op_sdpa;
CREATE VIEW op_sdpa AS
WITH c AS (
  SELECT o.id AS op_id, o.run_id, o.rank, s.text AS name, d.text AS dims,
    json_extract(t.text, '$[0]') AS dtype,
    json_extract(ci.text, '$[' || a.causal_arg || ']') AS causal,
    json_extract(d.text, '$[0]') AS q, json_extract(d.text, '$[1]') AS k,
    json_extract(d.text, '$[2]') AS v
  FROM cpu_op o JOIN string s ON s.id = o.name_id
  JOIN op_attention a ON a.name = s.text
  JOIN string d ON d.id = o.input_dims_id
  LEFT JOIN string t ON t.id = o.input_types_id
  JOIN string ci ON ci.id = o.concrete_inputs_id
  WHERE json_valid(d.text) AND json_valid(ci.text)
),
x AS (
  SELECT c.*,
    json_extract(q, '$[0]') AS b, json_extract(q, '$[1]') AS h,
    json_extract(q, '$[2]') AS l, json_extract(q, '$[3]') AS dq,
    json_extract(k, '$[1]') AS hk, json_extract(k, '$[2]') AS sk,
    json_extract(v, '$[3]') AS dv
  FROM c
  WHERE json_array_length(q) = 4 AND json_array_length(k) = 4
    AND json_array_length(v) = 4 AND causal IN ('True', 'False')
    AND json_extract(k, '$[3]') = json_extract(q, '$[3]')
)
SELECT op_id, run_id, rank, name, 'attention_fwd' AS kind, dims, dtype,
  2.0 * b * h * l * sk * (dq + dv)
    * CASE causal WHEN 'True' THEN 0.5 ELSE 1 END AS flops,
  (1.0 * b * h * l * dq + 1.0 * b * hk * sk * (dq + dv) + 1.0 * b * h * l * dv)
    * coalesce((SELECT size FROM op_dtype WHERE type = dtype), 4) AS bytes
FROM x WHERE b > 0 AND h > 0 AND l > 0 AND sk > 0 AND dq > 0 AND dv > 0;

-- Streaming kinds (016's op_stream) counted every tensor input as read;
-- ops that only write their first argument (fill_, zero_, copy_'s
-- destination) read it not at all: bytes = the other tensor inputs read
-- + the output written.  (On the A100 fixture fill_ of 45 M floats ran
-- at 2 x its HBM roofline with the old count, 93 % with this one.)
-- Memory-bound ops can still pass 100 % of the HBM roofline when their
-- data sits in L2 (40 MB on an A100): that is measured, not a model error.
CREATE TABLE op_write_first(name TEXT PRIMARY KEY);
INSERT INTO op_write_first VALUES ('aten::fill_'), ('aten::zero_'),
  ('aten::copy_');

DROP VIEW op_stream;
CREATE VIEW op_stream AS
WITH kn AS MATERIALIZED (           -- each name's kind once, not per call
  SELECT k.name_id, k.name, k.kind, kc.flops_per_elem AS fpe,
    k.name IN (SELECT name FROM op_write_first) AS wf
  FROM op_kind k JOIN op_kind_cost kc ON kc.kind = k.kind
),
x AS (
  SELECT o.run_id, o.id AS op_id, o.rank, kn.name, kn.kind, kn.fpe, kn.wf,
    d.text AS dims, t.text AS types, e.key AS i,
    coalesce(json_extract(e.value, '$[0]'), 1)
      * coalesce(json_extract(e.value, '$[1]'), 1)
      * coalesce(json_extract(e.value, '$[2]'), 1)
      * coalesce(json_extract(e.value, '$[3]'), 1)
      * coalesce(json_extract(e.value, '$[4]'), 1)
      * coalesce(json_extract(e.value, '$[5]'), 1)
      * coalesce(json_extract(e.value, '$[6]'), 1)
      * coalesce(json_extract(e.value, '$[7]'), 1) AS n
  FROM cpu_op o JOIN kn ON kn.name_id = o.name_id
  JOIN string d ON d.id = o.input_dims_id
  JOIN string t ON t.id = o.input_types_id, json_each(d.text) e
  WHERE json_valid(d.text) AND json_valid(t.text) AND e.type = 'array'
    AND json_extract(t.text, '$[' || e.key || ']')
        IN (SELECT type FROM op_dtype)
),
-- one aggregate over the calls, grouped by run_id first: a run_id filter
-- from outside reaches the cpu_op scan
y AS (
  SELECT run_id, op_id, min(rank) AS rank, min(name) AS name,
    min(kind) AS kind, min(dims) AS dims, min(types) AS types,
    min(fpe) AS fpe, max(wf) AS wf, sum(n) AS sum_n, max(n) AS max_n,
    min(i) AS i0, sum(CASE WHEN i = 0 THEN n ELSE 0 END) AS n0
  FROM x GROUP BY run_id, op_id
)
SELECT op_id, run_id, rank, name, kind, dims,
  json_extract(types, '$[' || i0 || ']') AS dtype,
  fpe * max_n AS flops,
  1.0 * (sum_n - CASE WHEN wf THEN n0 ELSE 0 END + max_n)
    * (SELECT size FROM op_dtype
       WHERE type = json_extract(types, '$[' || i0 || ']')) AS bytes
FROM y;

-- Every modeled operator call: 016's op_model with the kinds above.
DROP VIEW op_model;
CREATE VIEW op_model AS
SELECT g.op_id, g.run_id, g.rank, g.name,
  coalesce((SELECT r.kind FROM op_kind_rule r WHERE g.name GLOB r.pattern
            ORDER BY r.priority, r.rowid LIMIT 1), 'unknown') AS kind,
  g.dims, g.dtype, g.flops, g.bytes
FROM op_gemm g
UNION ALL
SELECT op_id, run_id, rank, name, kind, dims, dtype, flops, bytes
FROM op_sdpa
UNION ALL
SELECT op_id, run_id, rank, name, kind, dims, dtype, flops, bytes
FROM op_stream
UNION ALL
SELECT op_id, run_id, rank, name, kind, dims, dtype, flops, bytes
FROM op_conv_model
UNION ALL
SELECT op_id, run_id, rank, name, kind, dims, dtype, flops, bytes
FROM op_sdpa_bwd
UNION ALL
SELECT op_id, run_id, rank, name, kind, dims, dtype, flops, bytes
FROM op_gather_model;

-- ------------------------------------------------------------------
-- gpu_spec, checked against the vendors' datasheets (016's rows were
-- written from memory).  Dense figures: the datasheets print the Tensor
-- Core rates with 2:4 sparsity (marked *), halved here.  Changes: B200
-- memory 8.0 -> 7.7 TB/s; V100 int8 removed (not a datasheet figure);
-- MI250/MI250X are per GCD (ROCm shows each of the module's two dies as
-- one device, so a trace's device has half the module's peaks and
-- bandwidth); ROCm devices named "AMD Radeon Graphics" are matched by
-- their compute-unit count (gpu_spec_cu); the
-- A100 80GB PCIe pattern now matches the driver's "NVIDIA A100 80GB PCIe".
-- Sources (rows cite theirs in `source`):
--   [V100]  NVIDIA Tesla V100 GPU Accelerator datasheet: SXM2 15.7 FP32,
--           125 tensor, PCIe 14 / 112, HBM2 900 GB/s (both).
--   [A100]  NVIDIA A100 Tensor Core GPU datasheet (nvidia-a100-datasheet-
--           us-nvidia-1758950-r4-web.pdf): 19.5 FP32, TF32 156 (312*),
--           BF16/FP16 312 (624*), INT8 624 (1248*); 40GB 1,555 GB/s,
--           80GB SXM 2,039 GB/s, 80GB PCIe 1,935 GB/s.
--   [H100]  NVIDIA H100 Tensor Core GPU datasheet: SXM 67 FP32, TF32
--           989*, BF16/FP16 1,979*, FP8/INT8 3,958*, 3.35 TB/s; PCIe
--           51, 756*, 1,513*, 3,026*, 2 TB/s; NVL 60, 835*, 1,671*,
--           3,341*, 3.9 TB/s.
--   [H200]  NVIDIA H200 Tensor Core GPU datasheet: compute as H100 SXM,
--           141 GB HBM3e at 4.8 TB/s.
--   [B200]  NVIDIA Blackwell datasheet, HGX B200 column, per GPU: FP32
--           75, TF32 2.2 PF*, BF16/FP16 4.5 PF*, FP8 9 PF*, INT8 9 POPS*,
--           180 GB HBM3E at 7.7 TB/s.
--   [MI250] AMD Instinct MI250 / MI250X product pages, per module: peak
--           FP32 matrix 90.5 / 95.7, FP16/BF16 and INT8 362.1 / 383,
--           HBM2e 3.2768 TB/s; no FP8, no TF32.
--   [MI300] AMD Instinct MI300X data sheet: FP32 matrix 163.4, TF32
--           653.7, FP16/BF16 1,307.4, FP8/INT8 2,614.9 (dense), HBM3
--           5.3 TB/s.
--   [2080]  NVIDIA Turing GPU Architecture whitepaper, appendix table,
--           GeForce RTX 2080 Ti reference: 13.4 FP32, FP16 tensor with
--           FP32 accumulate 53.8, INT8 215.2 TOPS, 616 GB/s.
-- Checked 2026-11-25 (profan issue 21) with secondary copies of the
-- same tables: glennklockwood.com/garden/processors/{A100,H100,B200},
-- archive-lib.hpctech.co.jp/gpuproduct/nvidia-h100.html (NVIDIA's H100
-- table, sparsity marked), zdszero.github.io (NVIDIA's GB200 NVL72 /
-- HGX B200 table), yobitel.com/knowledge-base/amd-mi250 (MI250/X).
-- The fixtures' "NVIDIA H100" reports 95 GiB, which no 80 GB H100 SXM
-- has (a 96 GB part: GH200 or H100 96GB, up to 4 TB/s): a bare name is
-- still taken as the SXM 80GB part; add a row with num_sms or a longer
-- pattern for your site.
-- Devices whose name says nothing (ROCm: "AMD Radeon Graphics") are
-- matched by name and SM / CU count to a gpu_spec row (by its gpu);
-- these come before gpu_spec's own patterns.
CREATE TABLE gpu_spec_cu(
  pattern TEXT NOT NULL,           -- GLOB against device.name
  num_sms INTEGER NOT NULL,        -- device.num_sms (CUs on ROCm)
  gpu TEXT NOT NULL,               -- gpu_spec.gpu
  source TEXT NOT NULL
);
INSERT INTO gpu_spec_cu VALUES
 ('AMD Radeon Graphics', 110, 'MI250X (one GCD)',
  '[MI250] 110 CUs per MI250X GCD'),
 ('AMD Radeon Graphics', 104, 'MI250 (one GCD)',
  '[MI250] 104 CUs per MI250 GCD');

DELETE FROM gpu_spec WHERE gpu IN ('V100 PCIe', 'V100 SXM2',
  'A100 80GB PCIe', 'A100 80GB SXM', 'A100 40GB PCIe', 'A100 40GB SXM',
  'H100 PCIe', 'H100 NVL', 'H100 SXM', 'H200 SXM', 'B200 (HGX)', 'MI250X',
  'MI250', 'MI300X', 'GeForce RTX 2080 Ti');
INSERT INTO gpu_spec(pattern, priority, gpu, fp32, tf32, bf16, fp16, fp8,
                     int8, mem_tbps, source) VALUES
 ('*V100*PCIE*', 10, 'V100 PCIe', 14.0, NULL, NULL, 112, NULL, NULL, 0.900,
  '[V100] Tesla V100 datasheet'),
 ('*V100*', 20, 'V100 SXM2', 15.7, NULL, NULL, 125, NULL, NULL, 0.900,
  '[V100] Tesla V100 datasheet'),
 ('*A100*80GB*PCIe*', 10, 'A100 80GB PCIe', 19.5, 156, 312, 312, NULL, 624,
  1.935, '[A100] A100 datasheet r4'),
 ('*A100*PCIE*80GB*', 10, 'A100 80GB PCIe', 19.5, 156, 312, 312, NULL, 624,
  1.935, '[A100] A100 datasheet r4'),
 ('*A100*80GB*', 15, 'A100 80GB SXM', 19.5, 156, 312, 312, NULL, 624, 2.039,
  '[A100] A100 datasheet r4'),
 ('*A100*PCIE*', 16, 'A100 40GB PCIe', 19.5, 156, 312, 312, NULL, 624, 1.555,
  '[A100] A100 datasheet r4'),
 ('*A100*', 20, 'A100 40GB SXM', 19.5, 156, 312, 312, NULL, 624, 1.555,
  '[A100] A100 datasheet r4'),
 ('*H100*PCIe*', 10, 'H100 PCIe', 51, 378, 756.5, 756.5, 1513, 1513, 2.0,
  '[H100] H100 datasheet'),
 ('*H100*NVL*', 10, 'H100 NVL', 60, 417.5, 835.5, 835.5, 1670.5, 1670.5, 3.9,
  '[H100] H100 datasheet'),
 ('*H100*', 20, 'H100 SXM', 67, 494.7, 989.4, 989.4, 1978.9, 1978.9, 3.35,
  '[H100] H100 datasheet'),
 ('*H200*', 20, 'H200 SXM', 67, 494.7, 989.4, 989.4, 1978.9, 1978.9, 4.8,
  '[H200] H200 datasheet'),
 ('*B200*', 20, 'B200 (HGX)', 75, 1100, 2250, 2250, 4500, 4500, 7.7,
  '[B200] Blackwell datasheet, HGX B200'),
 ('*MI250X*', 10, 'MI250X (one GCD)', 47.85, NULL, 191.5, 191.5, NULL, 191.5,
  1.6384, '[MI250] AMD Instinct MI250X, per module / 2'),
 ('*MI250*', 20, 'MI250 (one GCD)', 45.25, NULL, 181.05, 181.05, NULL,
  181.05, 1.6384, '[MI250] AMD Instinct MI250, per module / 2'),
 ('*MI300X*', 20, 'MI300X', 163.4, 653.7, 1307.4, 1307.4, 2614.9, 2614.9, 5.3,
  '[MI300] AMD Instinct MI300X data sheet'),
 ('*2080 Ti*', 20, 'GeForce RTX 2080 Ti', 13.4, NULL, NULL, 53.8, NULL,
  215.2, 0.616, '[2080] Turing whitepaper');

DROP VIEW device_spec;
CREATE VIEW device_spec AS
SELECT d.run_id, d.rank, d.device, d.name, s.gpu, s.fp32, s.tf32, s.bf16,
  s.fp16, s.fp8, s.int8, s.mem_tbps
FROM device d JOIN gpu_spec s ON s.rowid = coalesce((
  SELECT s3.rowid FROM gpu_spec_cu c JOIN gpu_spec s3 ON s3.gpu = c.gpu
  WHERE d.name GLOB c.pattern AND c.num_sms = d.num_sms
  ORDER BY s3.priority, s3.rowid LIMIT 1), (
  SELECT s2.rowid FROM gpu_spec s2 WHERE d.name GLOB s2.pattern
  ORDER BY s2.priority, s2.rowid LIMIT 1));

-- Runs ingested before this file.
INSERT INTO op_target SELECT id FROM run;
INSERT INTO op_gpu_time SELECT * FROM op_call_time_calc;
INSERT INTO op_run_metric SELECT * FROM op_metric_calc;
DELETE FROM op_target;

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

