-- name: operators
-- description: CPU operators by name: calls, total and self CPU time, GPU
-- description: time of the kernels each launched directly, and the most
-- description: common input shapes.
-- param: rank =          only this rank (empty: every rank)
-- param: order = self    sort by 'self', 'total', 'gpu' or 'calls'
-- param: limit = 25      rows to show
-- column: name           operator name (aten::mm, a record_function name ...)
-- column: calls          number of calls
-- column: total_ms       CPU time including children, ms
-- column: self_ms        CPU time minus direct children, ms
-- column: avg_self_us    self time per call, µs
-- column: gpu_ms         time of kernels/memcpys launched directly by it, ms
-- column: kernels        kernels launched directly by it
-- column: top_shapes     most frequent input shapes (with counts)
WITH o AS (
  SELECT name_id, count(*) AS calls, sum(dur) AS total_ns,
    sum(coalesce(self_dur, dur)) AS self_ns
  FROM cpu_op
  WHERE run_id = :run AND (:rank IS NULL OR rank = :rank)
  GROUP BY name_id
),
g AS (
  SELECT c.name_id, sum(x.dur) AS ns, count(*) AS n
  FROM (SELECT op_id, dur FROM kernel WHERE run_id = :run
          AND (:rank IS NULL OR rank = :rank) AND op_id IS NOT NULL
        UNION ALL
        SELECT op_id, dur FROM gpu_mem_op WHERE run_id = :run
          AND (:rank IS NULL OR rank = :rank) AND op_id IS NOT NULL) x
  JOIN cpu_op c ON c.id = x.op_id
  GROUP BY c.name_id
),
ranked AS (
  SELECT o.*, coalesce(g.ns, 0) AS gpu_ns, coalesce(g.n, 0) AS kernels
  FROM o LEFT JOIN g ON g.name_id = o.name_id
  ORDER BY CASE :order WHEN 'total' THEN o.total_ns WHEN 'gpu' THEN coalesce(g.ns, 0)
                       WHEN 'calls' THEN o.calls ELSE o.self_ns END DESC
  LIMIT :limit
),
shapes AS (
  SELECT c.name_id, d.text AS d, count(*) AS n
  FROM cpu_op c JOIN string d ON d.id = c.input_dims_id
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
  t.top_shapes
FROM ranked r JOIN string s ON s.id = r.name_id
LEFT JOIN top3 t ON t.name_id = r.name_id
ORDER BY CASE :order WHEN 'total' THEN r.total_ns WHEN 'gpu' THEN r.gpu_ns
                     WHEN 'calls' THEN r.calls ELSE r.self_ns END DESC, s.text;
