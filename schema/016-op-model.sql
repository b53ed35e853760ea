-- 016-op-model.sql — per-operator performance model (issue 21): what kind
-- each operator is, the FLOPs and bytes a GEMM must do from the shapes the
-- trace records, the peak of the GPU it ran on, and the GPU time of each
-- call counted once however its kernels overlap.  Data tables (edit them
-- with SQL and the queries follow) plus plain views (stock sqlite3 shell).
-- Read by queries/op-roofline.sql, queries/op-kinds.sql and op_metric.

-- Peak dense (no sparsity) throughput per GPU, matched against
-- device.name with GLOB; the lowest `priority` wins.  TFLOP/s (int8:
-- TOP/s) and TB/s; NULL where the GPU has no such unit.  Sources, vendor
-- datasheets (the "with sparsity" figures halved):
--   V100: NVIDIA Tesla V100 GPU Accelerator datasheet (SXM2 / PCIe).
--   A100: NVIDIA A100 Tensor Core GPU datasheet (40GB / 80GB, SXM / PCIe).
--   H100: NVIDIA H100 Tensor Core GPU datasheet (SXM / PCIe / NVL).
--   H200: NVIDIA H200 Tensor Core GPU datasheet (SXM).
--   B200: NVIDIA HGX B200 / DGX B200 datasheet, per GPU.
--   MI250, MI250X, MI300X: AMD Instinct product pages (peak matrix FP32
--     used as fp32; MI250 has no fp8).
--   RTX 2080 Ti: NVIDIA Turing architecture whitepaper, GeForce RTX 2080
--     Ti (FP16 tensor with FP32 accumulate, which PyTorch uses).
-- A bare "NVIDIA H100" is taken as the SXM part.  AMD GPUs that ROCm
-- names "AMD Radeon Graphics" match nothing: add a row for your site.
CREATE TABLE gpu_spec(
  pattern TEXT NOT NULL,           -- GLOB against device.name
  priority INTEGER NOT NULL,       -- lower first
  gpu TEXT NOT NULL,               -- the part the numbers are for
  fp32 REAL, tf32 REAL, bf16 REAL, fp16 REAL, fp8 REAL, int8 REAL,
  mem_tbps REAL NOT NULL,          -- memory bandwidth, TB/s
  source TEXT NOT NULL
);
INSERT INTO gpu_spec VALUES
 ('*V100*PCIE*', 10, 'V100 PCIe', 14.0, NULL, NULL, 112, NULL, 56, 0.900, 'V100 datasheet'),
 ('*V100*', 20, 'V100 SXM2', 15.7, NULL, NULL, 125, NULL, 62, 0.900, 'V100 datasheet'),
 ('*A100*PCIe*80GB*', 10, 'A100 80GB PCIe', 19.5, 156, 312, 312, NULL, 624, 1.935, 'A100 datasheet'),
 ('*A100*80GB*', 15, 'A100 80GB SXM', 19.5, 156, 312, 312, NULL, 624, 2.039, 'A100 datasheet'),
 ('*A100*PCIE*', 16, 'A100 40GB PCIe', 19.5, 156, 312, 312, NULL, 624, 1.555, 'A100 datasheet'),
 ('*A100*', 20, 'A100 40GB SXM', 19.5, 156, 312, 312, NULL, 624, 1.555, 'A100 datasheet'),
 ('*H100*PCIe*', 10, 'H100 PCIe', 51, 378, 756, 756, 1513, 1513, 2.0, 'H100 datasheet'),
 ('*H100*NVL*', 10, 'H100 NVL', 60, 417.5, 835.5, 835.5, 1670.5, 1670.5, 3.9, 'H100 datasheet'),
 ('*H100*', 20, 'H100 SXM', 67, 494.7, 989.4, 989.4, 1978.9, 1978.9, 3.35, 'H100 datasheet'),
 ('*H200*', 20, 'H200 SXM', 67, 494.7, 989.4, 989.4, 1978.9, 1978.9, 4.8, 'H200 datasheet'),
 ('*B200*', 20, 'B200 (HGX)', 75, 1100, 2250, 2250, 4500, 4500, 8.0, 'HGX B200 datasheet'),
 ('*MI250X*', 10, 'MI250X', 95.7, NULL, 383, 383, NULL, 383, 3.2768, 'AMD Instinct MI250X'),
 ('*MI250*', 20, 'MI250', 90.5, NULL, 362.1, 362.1, NULL, 362.1, 3.2768, 'AMD Instinct MI250'),
 ('*MI300X*', 20, 'MI300X', 163.4, 653.7, 1307.4, 1307.4, 2614.9, 2614.9, 5.3, 'AMD Instinct MI300X'),
 ('*2080 Ti*', 20, 'GeForce RTX 2080 Ti', 13.4, NULL, NULL, 53.8, NULL, 215.2, 0.616, 'Turing whitepaper');

-- The spec row of each (run, rank, device) that matched one.
CREATE VIEW device_spec AS
SELECT d.run_id, d.rank, d.device, d.name, s.gpu, s.fp32, s.tf32, s.bf16,
  s.fp16, s.fp8, s.int8, s.mem_tbps
FROM device d JOIN gpu_spec s ON s.rowid = (
  SELECT s2.rowid FROM gpu_spec s2 WHERE d.name GLOB s2.pattern
  ORDER BY s2.priority, s2.rowid LIMIT 1);

-- Element types as the trace's "Input type" spells them: bytes per
-- element and the gpu_spec column holding their peak (NULL: none).
CREATE TABLE op_dtype(
  type TEXT PRIMARY KEY,
  size INTEGER NOT NULL,
  peak TEXT                        -- 'fp32', 'bf16', 'fp16', 'fp8', 'int8'
);
INSERT INTO op_dtype VALUES
 ('float', 4, 'fp32'), ('double', 8, NULL), ('c10::Half', 2, 'fp16'),
 ('c10::BFloat16', 2, 'bf16'), ('c10::Float8_e4m3fn', 1, 'fp8'),
 ('c10::Float8_e5m2', 1, 'fp8'), ('c10::Float8_e4m3fnuz', 1, 'fp8'),
 ('c10::Float8_e5m2fnuz', 1, 'fp8'), ('signed char', 1, 'int8'),
 ('unsigned char', 1, 'int8'), ('int', 4, NULL), ('long int', 8, NULL);

-- Operator name (GLOB) -> kind; the lowest priority that matches wins.
-- The GEMM kinds have FLOP and byte formulas (view op_gemm), the
-- streaming kinds a per-element cost (op_kind_cost, view op_stream); the
-- others are timed and counted, their efficiency left unknown.  An
-- operator that matches nothing is of kind 'unknown'.
CREATE TABLE op_kind_rule(
  pattern TEXT NOT NULL,
  priority INTEGER NOT NULL,
  kind TEXT NOT NULL
);
INSERT INTO op_kind_rule VALUES
 ('aten::_scaled_mm', 10, 'gemm_scaled'), ('*scaled_mm*', 11, 'gemm_scaled'),
 ('aten::mm', 10, 'gemm'), ('aten::addmm', 10, 'gemm'),
 ('aten::matmul', 10, 'gemm'), ('aten::linear', 10, 'gemm'),
 ('aten::bmm', 10, 'gemm_batched'), ('aten::baddbmm', 10, 'gemm_batched'),
 ('aten::addbmm', 10, 'gemm_batched'),
 ('*onvolution*ackward*', 20, 'conv_bwd'), ('*conv*backward*', 21, 'conv_bwd'),
 ('aten::*conv*', 22, 'conv_fwd'), ('*onvolution*', 23, 'conv_fwd'),
 ('*attention*backward*', 29, 'attention_bwd'),
 ('*flash*backward*', 30, 'attention_bwd'),
 ('*flash*', 31, 'attention_fwd'), ('*attention*', 31, 'attention_fwd'),
 ('*layer_norm*', 40, 'norm'), ('*rms_norm*', 40, 'norm'),
 ('*group_norm*', 40, 'norm'), ('*batch_norm*', 40, 'norm'),
 ('*softmax*', 41, 'softmax'),
 ('*embedding*', 42, 'embedding'),
 ('*rotary*', 43, 'rope'), ('*rope*', 43, 'rope'),
 ('*moe*', 44, 'moe'), ('*fused_experts*', 44, 'moe'),
 ('aten::copy_', 50, 'copy'), ('aten::_to_copy', 50, 'copy'),
 ('aten::clone', 50, 'copy'), ('aten::contiguous', 50, 'copy'),
 ('aten::cat', 50, 'copy'), ('aten::index*', 51, 'copy'),
 ('aten::sum', 60, 'reduction'), ('aten::mean', 60, 'reduction'),
 ('aten::amax', 60, 'reduction'), ('aten::max', 60, 'reduction'),
 ('aten::norm', 60, 'reduction'), ('aten::argmax', 60, 'reduction'),
 ('aten::add*', 70, 'elementwise'), ('aten::sub*', 70, 'elementwise'),
 ('aten::mul*', 70, 'elementwise'), ('aten::div*', 70, 'elementwise'),
 ('aten::relu*', 70, 'elementwise'), ('aten::gelu*', 70, 'elementwise'),
 ('aten::silu*', 70, 'elementwise'), ('aten::sigmoid*', 70, 'elementwise'),
 ('aten::tanh*', 70, 'elementwise'), ('aten::exp*', 70, 'elementwise'),
 ('aten::pow*', 70, 'elementwise'), ('aten::fill_', 70, 'elementwise'),
 ('aten::zero_', 70, 'elementwise'), ('aten::where', 70, 'elementwise'),
 ('aten::neg', 70, 'elementwise'), ('aten::rsqrt', 70, 'elementwise'),
 ('aten::threshold_backward', 70, 'elementwise');

-- Operator names -> kind (one row per interned name that is an op name).
CREATE VIEW op_kind AS
SELECT s.id AS name_id, s.text AS name, coalesce((
  SELECT r.kind FROM op_kind_rule r WHERE s.text GLOB r.pattern
  ORDER BY r.priority, r.rowid LIMIT 1), 'unknown') AS kind
FROM string s WHERE s.id IN (SELECT DISTINCT name_id FROM cpu_op);

-- GPU time of each operator call: the union of the intervals of the
-- kernels and memsets it launched directly (kernel.op_id, the innermost
-- enclosing op; a GEMM's cuBLAS workspace memsets are its memsets).
-- Kernels that overlap (programmatic dependent launch, several streams)
-- count once: union_ns; sum_ns is the plain sum for comparison.
CREATE VIEW op_call_time AS
WITH ev AS (
  SELECT op_id, run_id, rank, device, ts, ts + dur AS te FROM kernel
  WHERE op_id IS NOT NULL
  UNION ALL
  SELECT op_id, run_id, rank, device, ts, ts + dur FROM gpu_mem_op
  WHERE op_id IS NOT NULL AND kind = 'memset'
),
w AS (
  SELECT op_id, run_id, rank, device, ts, te,
    max(te) OVER (PARTITION BY op_id ORDER BY ts, te
                  ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev
  FROM ev
)
SELECT op_id, run_id, rank, min(device) AS device, count(*) AS n_gpu,
  sum(max(0, te - max(ts, coalesce(prev, ts)))) AS union_ns,
  sum(te - ts) AS sum_ns
FROM w GROUP BY op_id;

-- FLOPs and bytes of GEMM calls from "Input Dims" / "Input type":
--   mm, _scaled_mm  [M,K] x [K,N]            2MKN
--   addmm           bias, [M,K] x [K,N]       2MKN + MN (the bias add)
--   bmm             [B,M,K] x [B,K,N]         2BMKN
--   baddbmm         bias, [B,M,K] x [B,K,N]   2BMKN + BMN
--   addbmm          bias, [B,M,K] x [B,K,N]   2BMKN + MN
-- bytes: A, B and the output once each, plus the bias as printed, at the
-- element size of A's type (an fp8 _scaled_mm output is counted at 1 byte).
-- alpha/beta other than 1 are not counted.  Calls whose shapes do not fit
-- the formula are left out (the op-kinds query counts them as unknown).
CREATE VIEW op_gemm AS
WITH c AS (
  SELECT o.id AS op_id, o.run_id, o.rank, s.text AS name, d.text AS dims,
    t.text AS types,
    CASE WHEN s.text IN ('aten::mm', 'aten::_scaled_mm', 'aten::bmm')
         THEN 0 ELSE 1 END AS ai       -- index of A in the inputs
  FROM cpu_op o JOIN string s ON s.id = o.name_id
  JOIN string d ON d.id = o.input_dims_id
  LEFT JOIN string t ON t.id = o.input_types_id
  WHERE s.text IN ('aten::mm', 'aten::_scaled_mm', 'aten::addmm', 'aten::bmm',
                   'aten::baddbmm', 'aten::addbmm')
    AND json_valid(d.text)
),
g AS (
  SELECT c.*, name IN ('aten::bmm', 'aten::baddbmm', 'aten::addbmm') AS bat,
    json_extract(dims, '$[' || ai || ']') AS a,
    json_extract(dims, '$[' || (ai + 1) || ']') AS b,
    CASE WHEN ai = 1 THEN json_extract(dims, '$[0]') END AS bias,
    json_extract(types, '$[' || ai || ']') AS atype
  FROM c
),
s AS (
  SELECT g.*,
    CASE WHEN bat THEN json_extract(a, '$[0]') ELSE 1 END AS bb,
    json_extract(a, '$[' || bat || ']') AS m,
    json_extract(a, '$[' || (bat + 1) || ']') AS k,
    json_extract(b, '$[' || bat || ']') AS k2,
    json_extract(b, '$[' || (bat + 1) || ']') AS n,
    json_array_length(a) = 2 + bat AND json_array_length(b) = 2 + bat
      AND (NOT bat OR json_extract(a, '$[0]') = json_extract(b, '$[0]'))
      AS fits,
    CASE WHEN bias IS NULL THEN 0
         ELSE coalesce(json_extract(bias, '$[0]'), 1)
           * coalesce(json_extract(bias, '$[1]'), 1)
           * coalesce(json_extract(bias, '$[2]'), 1) END AS bias_n
  FROM g
)
SELECT op_id, run_id, rank, name, dims, atype AS dtype,
  2.0 * bb * m * k * n
    + CASE name WHEN 'aten::addmm' THEN 1.0 * m * n
                WHEN 'aten::baddbmm' THEN 1.0 * bb * m * n
                WHEN 'aten::addbmm' THEN 1.0 * m * n ELSE 0 END AS flops,
  (1.0 * bb * (m * k + k * n + m * n) + coalesce(bias_n, 0))
    * coalesce((SELECT size FROM op_dtype WHERE type = atype), 4) AS bytes
FROM s WHERE fits AND k = k2 AND m > 0 AND k > 0 AND n > 0;

-- Streaming kinds (memory-bound by design): FLOPs = flops_per_elem x the
-- largest tensor input's elements (the output of an elementwise op with
-- broadcasting); bytes = every tensor input read once + that output
-- written once, at the first tensor input's element size.  Tensor inputs
-- are the "Input Dims" entries whose "Input type" is in op_dtype.  The
-- per-element counts are conventions, stated here: 1 for elementwise, 5
-- for a normalization (mean, variance, normalize, scale, shift) and for a
-- softmax (max, subtract, exp, sum, divide), 0 for a copy.
CREATE TABLE op_kind_cost(
  kind TEXT PRIMARY KEY,
  flops_per_elem REAL NOT NULL
);
INSERT INTO op_kind_cost VALUES
 ('elementwise', 1), ('norm', 5), ('softmax', 5), ('copy', 0);

CREATE VIEW op_stream AS
WITH c AS (
  SELECT o.id AS op_id, o.run_id, o.rank, k.name, k.kind, d.text AS dims,
    t.text AS types, kc.flops_per_elem AS fpe
  FROM cpu_op o JOIN op_kind k ON k.name_id = o.name_id
  JOIN op_kind_cost kc ON kc.kind = k.kind
  JOIN string d ON d.id = o.input_dims_id
  JOIN string t ON t.id = o.input_types_id
  WHERE json_valid(d.text) AND json_valid(t.text)
),
x AS (
  SELECT c.op_id, e.key AS i,
    coalesce(json_extract(e.value, '$[0]'), 1)
      * coalesce(json_extract(e.value, '$[1]'), 1)
      * coalesce(json_extract(e.value, '$[2]'), 1)
      * coalesce(json_extract(e.value, '$[3]'), 1)
      * coalesce(json_extract(e.value, '$[4]'), 1)
      * coalesce(json_extract(e.value, '$[5]'), 1)
      * coalesce(json_extract(e.value, '$[6]'), 1)
      * coalesce(json_extract(e.value, '$[7]'), 1) AS n
  FROM c, json_each(c.dims) e
  WHERE e.type = 'array'
    AND json_extract(c.types, '$[' || e.key || ']')
        IN (SELECT type FROM op_dtype)
),
y AS (
  SELECT op_id, sum(n) AS sum_n, max(n) AS max_n, min(i) AS i0
  FROM x GROUP BY op_id
)
SELECT c.op_id, c.run_id, c.rank, c.name, c.kind, c.dims,
  json_extract(c.types, '$[' || y.i0 || ']') AS dtype,
  c.fpe * y.max_n AS flops,
  1.0 * (y.sum_n + y.max_n) * (SELECT size FROM op_dtype
    WHERE type = json_extract(c.types, '$[' || y.i0 || ']')) AS bytes
FROM c JOIN y ON y.op_id = c.op_id;

-- Scaled dot-product attention, forward, [B,H,L,D] layout: q [B,H,L,D],
-- k [B,Hk,S,D], v [B,Hk,S,Dv].  FLOPs = 2BHLS(D + Dv) (Q·Kᵀ and P·V),
-- half of it when the is_causal argument (Concrete Inputs, position
-- causal_arg) is True; softmax and scaling are not counted.  bytes = q,
-- k, v read and the [B,H,L,Dv] output written once.
CREATE TABLE op_attention(
  name TEXT PRIMARY KEY,
  causal_arg INTEGER NOT NULL      -- index of is_causal in the inputs
);
INSERT INTO op_attention VALUES
 ('aten::scaled_dot_product_attention', 5),
 ('aten::_scaled_dot_product_flash_attention', 4),
 ('aten::_scaled_dot_product_efficient_attention', 6),
 ('aten::_scaled_dot_product_cudnn_attention', 6);

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
  LEFT JOIN string ci ON ci.id = o.concrete_inputs_id
  WHERE json_valid(d.text)
),
x AS (
  SELECT c.*,
    json_extract(q, '$[0]') AS b, json_extract(q, '$[1]') AS h,
    json_extract(q, '$[2]') AS l, json_extract(q, '$[3]') AS dq,
    json_extract(k, '$[1]') AS hk, json_extract(k, '$[2]') AS sk,
    json_extract(v, '$[3]') AS dv
  FROM c
  WHERE json_array_length(q) = 4 AND json_array_length(k) = 4
    AND json_array_length(v) = 4 AND json_extract(k, '$[3]') = json_extract(q, '$[3]')
)
SELECT op_id, run_id, rank, name, 'attention_fwd' AS kind, dims, dtype,
  2.0 * b * h * l * sk * (dq + dv)
    * CASE WHEN causal IN ('True', 'true', '1') THEN 0.5 ELSE 1 END AS flops,
  (1.0 * b * h * l * dq + 1.0 * b * hk * sk * (dq + dv) + 1.0 * b * h * l * dv)
    * coalesce((SELECT size FROM op_dtype WHERE type = dtype), 4) AS bytes
FROM x WHERE b > 0 AND h > 0 AND l > 0 AND sk > 0 AND dq > 0 AND dv > 0;

-- Every modeled operator call: GEMMs, attention and the streaming kinds.
CREATE VIEW op_model AS
SELECT g.op_id, g.run_id, g.rank, g.name, k.kind, g.dims, g.dtype, g.flops,
  g.bytes
FROM op_gemm g JOIN cpu_op o ON o.id = g.op_id
JOIN op_kind k ON k.name_id = o.name_id
UNION ALL
SELECT op_id, run_id, rank, name, kind, dims, dtype, flops, bytes
FROM op_sdpa
UNION ALL
SELECT op_id, run_id, rank, name, kind, dims, dtype, flops, bytes
FROM op_stream;

-- Each timed modeled call against the roofline of its GPU and type:
-- roof_ns = max(flops / peak, bytes / bandwidth), the least time the GPU
-- needs; bound says which term is larger; NULL peak when the device or
-- the type has no spec row (then no efficiency).
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
WHERE t.union_ns > 0;

-- Kernels without a launch event in the trace (their cudaLaunchKernel
-- fell before the CPU window, or the CPU side was not recorded): profan
-- keeps them in every GPU total; this says how many and how much time.
CREATE VIEW kernel_unlaunched AS
SELECT run_id, rank, sum(runtime_id IS NULL) AS kernels,
  sum(CASE WHEN runtime_id IS NULL THEN dur ELSE 0 END) AS ns,
  count(*) AS all_kernels, sum(dur) AS all_ns
FROM kernel GROUP BY run_id, rank;

-- Exposed memcpy time per (run, rank, device): the time copies run while
-- no kernel (compute or communication) runs on the same GPU, i.e.
-- |copies ∪ kernels| - |kernels|; copies that overlap each other count
-- once.  memcpy_ns is |copies| for comparison.
CREATE VIEW memcpy_exposed AS
WITH ev AS (
  SELECT run_id, rank, device, 'all' AS part, ts, ts + dur AS te
  FROM kernel
  UNION ALL
  SELECT run_id, rank, device, 'kernel', ts, ts + dur FROM kernel
  UNION ALL
  SELECT run_id, rank, device, 'all', ts, ts + dur FROM gpu_mem_op
  WHERE kind = 'memcpy'
  UNION ALL
  SELECT run_id, rank, device, 'memcpy', ts, ts + dur FROM gpu_mem_op
  WHERE kind = 'memcpy'
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

-- Headline numbers (run_metric's columns; the lead unions this view into
-- run_metric):
--   gemm_efficiency_pct   sum of roofline times / sum of GPU times of the
--                         GEMM calls with a spec (time-weighted mean of
--                         % of roofline)
--   gemm_recoverable_ms   sum of (GPU time - roofline time) of those calls
--   gemm_time_ms          their GPU time (kernel union per call)
--   kernels_without_launch, kernels_without_launch_ms   all ranks
--   exposed_memcpy_ms     copy time no kernel hides, all ranks and GPUs
CREATE VIEW op_metric AS
WITH r AS (
  SELECT run_id, gpu_ns,
    max(flops / (peak_tflops * 1e3), bytes / (mem_tbps * 1e3)) AS roof_ns
  FROM op_roofline_call WHERE peak_tflops > 0 AND mem_tbps > 0
    AND kind GLOB 'gemm*'
)
SELECT run_id, 'gemm_efficiency_pct' AS metric,
  100.0 * sum(roof_ns) / sum(gpu_ns) AS value FROM r GROUP BY run_id
UNION ALL
SELECT run_id, 'gemm_recoverable_ms', sum(max(0, gpu_ns - roof_ns)) / 1e6
  FROM r GROUP BY run_id
UNION ALL
SELECT run_id, 'gemm_time_ms', sum(gpu_ns) / 1e6 FROM r GROUP BY run_id
UNION ALL
SELECT run_id, 'kernels_without_launch', sum(kernels)
  FROM kernel_unlaunched GROUP BY run_id
UNION ALL
SELECT run_id, 'kernels_without_launch_ms', sum(ns) / 1e6
  FROM kernel_unlaunched GROUP BY run_id
UNION ALL
SELECT run_id, 'exposed_memcpy_ms', sum(exposed_ns) / 1e6
  FROM memcpy_exposed GROUP BY run_id;

-- Which way op_metric's metrics get worse for `profan check` (the others
-- keep the default: higher is worse).  kernels_without_launch says how
-- the trace was cut, not how fast the run is: either way.
INSERT OR IGNORE INTO metric_direction VALUES
  ('gemm_efficiency_pct', 45, -1),
  ('kernels_without_launch*', 46, 0);
