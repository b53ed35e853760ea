-- name: operators
-- description: CPU operators by name: calls, total and self CPU time, GPU
-- description: time of the kernels each launched directly (per call the
-- description: union of their intervals: overlapping kernels count once),
-- description: and the most common input shapes.
-- param: rank:rank =          only this rank (empty: every rank)
-- param: order:self|total|gpu|calls = self    sort by 'self', 'total', 'gpu' or 'calls'
-- param: limit:int>=0 = 25      rows to show
-- column: name           operator name (aten::mm, a record_function name ...)
-- column: calls          number of calls
-- column: total_ms       CPU time including children, ms
-- column: self_ms        CPU time minus direct children, ms
-- column: avg_self_us    self time per call, µs
-- column: gpu_ms         GPU time it launched directly, union per call, ms
-- column: kernels        kernels, memcpys, memsets launched directly by it
-- column: top_shapes     most frequent input shapes (with counts)
-- column: self_bar       self_ms / self time of all operators, as a bar
-- CPU totals from cpu_op_summary and cpu_op_shape_summary (schema 009),
-- filled at ingest: the same numbers as a GROUP BY over cpu_op
WITH o AS (
  SELECT name_id, sum(calls) AS calls, sum(total_ns) AS total_ns,
    sum(self_ns) AS self_ns
  FROM cpu_op_summary
  WHERE run_id = :run AND (:rank IS NULL OR rank = :rank)
  GROUP BY name_id
),
-- GPU time per call is the union of what it launched (op_gpu_time,
-- schema 022, stored at ingest): kernels that overlap count once; the
-- run's rows are its cpu_op rowid range (op_id is a cpu_op.id, schema 123)
g AS (
  SELECT name_id, sum(union_ns) AS ns, sum(n_gpu) AS n
  FROM op_gpu_time
  WHERE op_id BETWEEN (SELECT lo FROM run_rowid_range
                       WHERE run_id = :run AND tbl = 'cpu_op')
                  AND (SELECT hi FROM run_rowid_range
                       WHERE run_id = :run AND tbl = 'cpu_op')
    AND +run_id = :run AND (:rank IS NULL OR rank = :rank)
  GROUP BY name_id
),
ranked AS (
  SELECT o.*, coalesce(g.ns, 0) AS gpu_ns, coalesce(g.n, 0) AS kernels
  FROM o LEFT JOIN g ON g.name_id = o.name_id
  ORDER BY CASE :order WHEN 'total' THEN o.total_ns WHEN 'gpu' THEN coalesce(g.ns, 0)
                       WHEN 'calls' THEN o.calls ELSE o.self_ns END DESC
  LIMIT :limit
),
shapes AS (
  SELECT c.name_id, d.text AS d, sum(c.calls) AS n
  FROM cpu_op_shape_summary c JOIN string d ON d.id = c.input_dims_id
  WHERE c.run_id = :run AND (:rank IS NULL OR c.rank = :rank)
    AND c.name_id IN (SELECT name_id FROM ranked)
  GROUP BY c.name_id, c.input_dims_id
),
top3 AS (
  SELECT name_id, group_concat(d || ' x' || n, '; ') AS top_shapes
  FROM (SELECT *, row_number() OVER (PARTITION BY name_id
                                     ORDER BY n DESC, d) AS k FROM shapes)
  WHERE k <= 3 GROUP BY name_id
)
SELECT s.text AS name, r.calls,
  round(r.total_ns / 1e6, 3) AS total_ms,
  round(r.self_ns / 1e6, 3) AS self_ms,
  round(r.self_ns / 1e3 / r.calls, 3) AS avg_self_us,
  round(r.gpu_ns / 1e6, 3) AS gpu_ms,
  r.kernels,
  t.top_shapes,
  round(1.0 * r.self_ns / (SELECT max(sum(self_ns), 1) FROM o), 4) AS self_bar
FROM ranked r JOIN string s ON s.id = r.name_id
LEFT JOIN top3 t ON t.name_id = r.name_id
ORDER BY CASE :order WHEN 'total' THEN r.total_ns WHEN 'gpu' THEN r.gpu_ns
                     WHEN 'calls' THEN r.calls ELSE r.self_ns END DESC, s.text;
