-- 063-op-bytes.sql — the roofline's bytes of streaming ops and gathers as
-- the kernels move them (issue 32 point 5: efficiencies above 100 %).
--
--   op_out_arg      arguments an op only writes (`out=` tensors): not
--                   counted as read.  Kineto lists them among the inputs:
--                   aten::mul [[512,2862],[],[512,2862]] is mul.out(self,
--                   other, out), one tensor read, one written, where the
--                   streaming arm had read both (3 tensors, 150 %).
--   op_stream       an elementwise op writes the broadcast shape of the
--                   tensors read (aten::add [[512,1],[1,2862]] writes
--                   512 x 2862), no longer the largest input; a scalar
--                   operand ([]) is one element; in-place ops (add_) read
--                   and write their first argument, as before.
--   op_index_select_model  aten::index_select(self, dim, index): the rows
--                   read and written, not the table: 2 x numel(index) x
--                   numel(self) / self[dim] elements + the indices
--                   (a [30522,512] table with 141 indices: 0.58 MB, where
--                   the copy arm counted 125 MB: 595 % on an H100).  Kind
--                   'gather', its own kind rule before aten::index* (copy).
-- The stored models of signatures already ingested are recomputed at the
-- end (op_sig_model, schema 027).

CREATE TABLE op_out_arg(
  pattern TEXT NOT NULL,           -- GLOB over the op name
  arg INTEGER NOT NULL,            -- 0-based position in Input Dims
  PRIMARY KEY(pattern, arg)
);
INSERT INTO op_out_arg VALUES
  ('aten::mul*', 2), ('aten::div*', 2),   -- (self, other, out)
  ('aten::add*', 3), ('aten::sub*', 3);   -- (self, other, alpha, out)
INSERT INTO table_role(name, role, input_kind, summary, description) VALUES
  ('op_out_arg', 'parameter', NULL, 0,
   'out= arguments of operators: written, not read');

INSERT INTO op_kind_rule VALUES ('aten::index_select', 45, 'gather');

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
-- the broadcast shape of the tensors read by an elementwise op: per
-- dimension counted from the right, the largest size; NULL when a shape
-- is not a flat list of integers (a tensor list), then the largest input
-- stands for the output.  Norms, softmax and copies write their largest
-- input (a norm's [C] weight is no broadcast operand of its [N,C,H,W])
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
-- one aggregate over the signatures
y AS MATERIALIZED (
  SELECT run_id, op_id, min(rank) AS rank, min(name) AS name,
    min(kind) AS kind, min(dims) AS dims, min(types) AS types,
    min(fpe) AS fpe, max(wf) AS wf,
    sum(CASE WHEN out_arg THEN 0 ELSE n END) AS sum_n,
    max(CASE WHEN out_arg THEN 0 ELSE n END) AS max_n,
    max(CASE WHEN out_arg THEN n ELSE 0 END) AS out_n,
    min(i) AS i0, sum(CASE WHEN i = 0 THEN n ELSE 0 END) AS n0
  FROM x GROUP BY run_id, op_id
)
SELECT y.op_id, run_id, rank, name, kind, dims,
  json_extract(types, '$[' || i0 || ']') AS dtype,
  fpe * max(max_n, out_n, coalesce(b.n_out, 0)) AS flops,
  1.0 * (sum_n - CASE WHEN wf THEN n0 ELSE 0 END
         + max(max_n, out_n, coalesce(b.n_out, 0)))
    * (SELECT size FROM op_dtype
       WHERE type = json_extract(types, '$[' || i0 || ']')) AS bytes
FROM y LEFT JOIN b ON b.op_id = y.op_id;

CREATE VIEW op_index_select_model AS
WITH c AS MATERIALIZED (
  SELECT o.id AS op_id, o.run_id, o.rank, s.text AS name, d.text AS dims,
    json_extract(t.text, '$[0]') AS dtype,
    coalesce(CAST(json_extract(ci.text, '$[1]') AS INTEGER), 0) AS dim,
    (SELECT size FROM op_dtype WHERE type = json_extract(t.text, '$[0]'))
      AS sz0,
    coalesce((SELECT size FROM op_dtype
              WHERE type = json_extract(t.text, '$[2]')), 8) AS szi
  FROM op_sig_scope o JOIN string s ON s.id = o.name_id
  JOIN string d ON d.id = o.input_dims_id
  JOIN string t ON t.id = o.input_types_id
  LEFT JOIN string ci ON ci.id = o.concrete_inputs_id
  WHERE s.text = 'aten::index_select' AND json_valid(d.text)
    AND json_valid(t.text) AND (ci.text IS NULL OR json_valid(ci.text))
),
n AS MATERIALIZED (
  SELECT c.*,
    (SELECT CASE WHEN count(*) = json_array_length(c.dims, '$[0]')
       AND min(e.type = 'integer') THEN
       coalesce(max(CASE e.key WHEN 0 THEN e.value END), 1)
       * coalesce(max(CASE e.key WHEN 1 THEN e.value END), 1)
       * coalesce(max(CASE e.key WHEN 2 THEN e.value END), 1)
       * coalesce(max(CASE e.key WHEN 3 THEN e.value END), 1)
       * coalesce(max(CASE e.key WHEN 4 THEN e.value END), 1) END
     FROM json_each(c.dims, '$[0]') e) AS n_self,
    json_extract(c.dims, '$[0][' || c.dim || ']') AS n_dim,
    coalesce(json_extract(c.dims, '$[2][0]'), 1) AS n_idx
  FROM c
  WHERE json_array_length(c.dims, '$[0]') BETWEEN 1 AND 5
    AND json_array_length(c.dims, '$[2]') <= 1 AND c.sz0 > 0
)
SELECT op_id, run_id, rank, name, 'gather' AS kind, dims, dtype,
  0.0 AS flops,
  2.0 * n_idx * n_self / n_dim * sz0 + 1.0 * n_idx * szi AS bytes
FROM n WHERE n_self > 0 AND n_dim > 0 AND n_idx >= 0;

DROP VIEW op_sig_model_calc;
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
SELECT op_id, 0, kind, dtype, flops, bytes FROM op_gather_model
UNION ALL
SELECT op_id, 0, kind, dtype, flops, bytes FROM op_index_select_model;

-- Signatures already stored: modeled again with these formulas.
DELETE FROM op_sig_model;
UPDATE op_sig SET modeled = 0;
INSERT INTO op_sig_model SELECT * FROM op_sig_model_calc;
UPDATE op_sig SET modeled = 1;
