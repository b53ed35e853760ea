-- name: fill-by-size
-- description: Fill / zero kernels grouped by the size of the tensor they
-- description: filled (from the launching operator's input shapes), so that
-- description: repeated re-initialisation of the same buffers stands out.
-- param: rank:rank =          only this rank (empty: every rank)
-- param: limit:int>=0 = 20      rows to show
-- column: op:name        operator that launched the fill (aten::zero_, aten::fill_ ...)
-- column: shape          the operator's first input shape
-- column: kernels        fill kernels
-- column: total_ms       their GPU time, ms
-- column: avg_us         mean duration, µs
-- column: pct_of_gpu     share of all GPU activity time of the run, %
WITH f AS (
  SELECT k.op_id, k.dur FROM kernel k
  WHERE k.run_id = :run AND (:rank IS NULL OR k.rank = :rank)
    AND k.name_id IN (SELECT id FROM string
                      WHERE instr(lower(text), 'fill') > 0
                         OR instr(lower(text), 'zero') > 0)
  UNION ALL
  SELECT m.op_id, m.dur FROM gpu_mem_op m
  WHERE m.run_id = :run AND m.kind = 'memset'
    AND (:rank IS NULL OR m.rank = :rank)
),
tot AS (
  SELECT sum(total_ns) AS ns FROM gpu_op_summary
  WHERE run_id = :run AND (:rank IS NULL OR rank = :rank)
),
g AS (
  -- per launching op name and input shapes first: the string lookups and
  -- the grouping by text below run once per group, not once per kernel
  SELECT o.name_id AS op_name_id, o.input_dims_id AS dims_id, count(*) AS n,
    sum(f.dur) AS ns
  FROM f LEFT JOIN cpu_op o ON o.id = f.op_id
  GROUP BY o.name_id, o.input_dims_id
)
SELECT coalesce(os.text, '(no launching op)') AS op,
  CASE WHEN d.text IS NULL THEN NULL
       WHEN instr(d.text, '],') > 0
         THEN substr(d.text, 2, instr(d.text, '],') - 1)
       ELSE substr(d.text, 2, length(d.text) - 2) END AS shape,
  sum(g.n) AS kernels,
  round(sum(g.ns) / 1e6, 3) AS total_ms,
  round(1.0 * sum(g.ns) / sum(g.n) / 1e3, 3) AS avg_us,
  round(100.0 * sum(g.ns) / (SELECT ns FROM tot), 2) AS pct_of_gpu
FROM g
LEFT JOIN string os ON os.id = g.op_name_id
LEFT JOIN string d ON d.id = g.dims_id
GROUP BY op, shape
ORDER BY sum(g.ns) DESC
LIMIT :limit;
