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
-- rows it kept while loading (src/trace/op_store.c, src/analysis/derive_op.c: equal to
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

-- 027's six arms and their union, restated with every step of their
-- WITH clauses MATERIALIZED (formulas unchanged): SQLite flattened the
-- steps into one expression per output column, so a column built on
-- earlier ones repeated their json_extract calls (each parsing the
-- string again) and the statement took long to prepare.  One-MB trace
-- (736 new signatures): op_sig_model_calc prepare 37 M -> 19 M
-- instructions, run 50 M -> 41 M; same rows.
DROP VIEW op_sig_model_calc;
DROP VIEW op_gemm;
CREATE VIEW op_gemm AS
WITH c AS MATERIALIZED (
  SELECT o.id AS op_id, o.run_id, o.rank, s.text AS name, d.text AS dims,
    t.text AS types,
    CASE WHEN s.text IN ('aten::mm', 'aten::_scaled_mm', 'aten::bmm')
         THEN 0 ELSE 1 END AS ai       -- index of A in the inputs
  FROM op_sig_scope o JOIN string s ON s.id = o.name_id
  JOIN string d ON d.id = o.input_dims_id
  LEFT JOIN string t ON t.id = o.input_types_id
  WHERE s.text IN ('aten::mm', 'aten::_scaled_mm', 'aten::addmm', 'aten::bmm',
                   'aten::baddbmm', 'aten::addbmm')
    AND json_valid(d.text)
),
g AS MATERIALIZED (
  SELECT c.*, name IN ('aten::bmm', 'aten::baddbmm', 'aten::addbmm') AS bat,
    json_extract(dims, '$[' || ai || ']') AS a,
    json_extract(dims, '$[' || (ai + 1) || ']') AS b,
    CASE WHEN ai = 1 THEN json_extract(dims, '$[0]') END AS bias,
    json_extract(types, '$[' || ai || ']') AS atype
  FROM c
),
s AS MATERIALIZED (
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

DROP VIEW op_sdpa;
CREATE VIEW op_sdpa AS
WITH c AS MATERIALIZED (
  SELECT o.id AS op_id, o.run_id, o.rank, s.text AS name, d.text AS dims,
    json_extract(t.text, '$[0]') AS dtype,
    json_extract(ci.text, '$[' || a.causal_arg || ']') AS causal,
    json_extract(d.text, '$[0]') AS q, json_extract(d.text, '$[1]') AS k,
    json_extract(d.text, '$[2]') AS v
  FROM op_sig_scope o JOIN string s ON s.id = o.name_id
  JOIN op_attention a ON a.name = s.text
  JOIN string d ON d.id = o.input_dims_id
  LEFT JOIN string t ON t.id = o.input_types_id
  JOIN string ci ON ci.id = o.concrete_inputs_id
  WHERE json_valid(d.text) AND json_valid(ci.text)
),
x AS MATERIALIZED (
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
    d.text AS dims, t.text AS types, e.key AS i,
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
-- one aggregate over the signatures
y AS MATERIALIZED (
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

DROP VIEW op_conv_model;
CREATE VIEW op_conv_model AS
WITH c AS MATERIALIZED (
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
  FROM op_sig_scope o JOIN string s ON s.id = o.name_id
  JOIN op_conv v ON v.name = s.text
  JOIN string d ON d.id = o.input_dims_id
  LEFT JOIN string t ON t.id = o.input_types_id
  JOIN string ci ON ci.id = o.concrete_inputs_id
  WHERE json_valid(d.text) AND json_valid(ci.text)
),
p AS MATERIALIZED (
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
o AS MATERIALIZED (
  SELECT p.*,
    CASE WHEN dir = 'bwd' THEN
      coalesce(json_extract(go, '$[2]'), 1)
        * coalesce(json_extract(go, '$[3]'), 1)
        * coalesce(json_extract(go, '$[4]'), 1)
    ELSE (
      SELECT CASE WHEN count(*) = nd AND min(v) > 0 THEN
        max(CASE WHEN i = 0 THEN v END)
          * coalesce(max(CASE WHEN i = 1 THEN v END), 1)
          * coalesce(max(CASE WHEN i = 2 THEN v END), 1) END
      FROM (
        SELECT e.key AS i,
          (json_extract(x, '$[' || (2 + e.key) || ']')
           + 2 * coalesce(json_extract(pd, '$[' || e.key || ']'),
                          json_extract(pd, '$[0]'))
           - coalesce(json_extract(dl, '$[' || e.key || ']'),
                      json_extract(dl, '$[0]'))
             * (json_extract(w, '$[' || (2 + e.key) || ']') - 1) - 1)
          / coalesce(json_extract(st, '$[' || e.key || ']'),
                     json_extract(st, '$[0]'))
          + 1 AS v
        FROM json_each(json_array(0, 1, 2)) e WHERE e.key < nd))
    END AS pq
  FROM p
)
SELECT op_id, run_id, rank, name, 'conv_' || dir AS kind, dims, dtype,
  CASE dir WHEN 'fwd' THEN
    2.0 * n * k * pq * cg * rr
      + CASE WHEN has_bias > 0 THEN 1.0 * n * k * pq ELSE 0 END
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

DROP VIEW op_sdpa_bwd;
CREATE VIEW op_sdpa_bwd AS
WITH c AS MATERIALIZED (
  SELECT o.id AS op_id, o.run_id, o.rank, s.text AS name, d.text AS dims,
    json_extract(t.text, '$[1]') AS dtype,
    json_extract(ci.text, '$[' || a.causal_arg || ']') AS causal,
    json_extract(d.text, '$[1]') AS q, json_extract(d.text, '$[2]') AS k,
    json_extract(d.text, '$[3]') AS v
  FROM op_sig_scope o JOIN string s ON s.id = o.name_id
  JOIN op_attention_bwd a ON a.name = s.text
  JOIN string d ON d.id = o.input_dims_id
  LEFT JOIN string t ON t.id = o.input_types_id
  JOIN string ci ON ci.id = o.concrete_inputs_id
  WHERE json_valid(d.text) AND json_valid(ci.text)
),
x AS MATERIALIZED (
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

DROP VIEW op_gather_model;
CREATE VIEW op_gather_model AS
WITH c AS MATERIALIZED (
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
  FROM op_sig_scope o JOIN string s ON s.id = o.name_id
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

-- The arms' union, per signature (op_id of an arm: op_sig.id).
CREATE VIEW op_sig_model_calc AS
SELECT g.op_id AS sig_id, 1 AS matmul, k.kind, g.dtype, g.flops, g.bytes
FROM op_gemm g JOIN op_sig o ON o.id = g.op_id
JOIN op_name_kind k ON k.name_id = o.name_id
UNION ALL
SELECT op_id, 1, kind, dtype, flops, bytes FROM op_sdpa
UNION ALL
SELECT op_id, 0, kind, dtype, flops, bytes FROM op_stream
UNION ALL
SELECT op_id, 0, kind, dtype, flops, bytes FROM op_conv_model
UNION ALL
SELECT op_id, 1, kind, dtype, flops, bytes FROM op_sdpa_bwd
UNION ALL
SELECT op_id, 0, kind, dtype, flops, bytes FROM op_gather_model;

-- Runs ingested before this file.
UPDATE op_gpu_time SET sig_id = (
  SELECT g.id FROM cpu_op o JOIN op_sig g ON g.name_id = o.name_id
    AND g.dims_id = coalesce(o.input_dims_id, 0)
    AND g.types_id = coalesce(o.input_types_id, 0)
    AND g.conc_id = coalesce(o.concrete_inputs_id, 0)
  WHERE o.id = op_gpu_time.op_id);
