-- name: top-kernels
-- description: GPU kernels (and memcpy/memset) ranked by total time, with
-- description: count, average, min, max, share of GPU time and time per step.
-- param: rank:rank =          only this rank (empty: all ranks)
-- param: kind:kernel|memcpy|memset =          only 'kernel', 'memcpy' or 'memset' (empty: all)
-- param: limit:int>=0 = 20      rows to show
-- column: kind           kernel, memcpy or memset
-- column: name           kernel name as recorded
-- column: count          number of launches
-- column: total_ms       total GPU time, ms
-- column: avg_us         mean duration, µs
-- column: min_us         shortest, µs
-- column: max_us         longest, µs
-- column: pct            share of all GPU activity time, %
-- column: per_step_ms    total_ms divided by the number of steps (per rank)
-- column: pct_bar        pct as a bar (table output)
WITH g AS (
  SELECT kind, name_id, sum(n) AS n, sum(total_ns) AS total_ns,
         min(min_ns) AS min_ns, max(max_ns) AS max_ns
  FROM gpu_op_summary
  WHERE run_id = :run AND (:rank IS NULL OR rank = :rank)
    AND (:kind IS NULL OR kind = :kind)
  GROUP BY kind, name_id
),
tot AS (
  SELECT sum(total_ns) AS ns FROM gpu_op_summary
  WHERE run_id = :run AND (:rank IS NULL OR rank = :rank)
),
steps AS (
  SELECT count(*) AS n FROM step
  WHERE run_id = :run AND (:rank IS NULL OR rank = :rank)
)
SELECT g.kind, s.text AS name, g.n AS count,
  round(g.total_ns / 1e6, 3) AS total_ms,
  round(g.total_ns / 1e3 / g.n, 3) AS avg_us,
  round(g.min_ns / 1e3, 3) AS min_us,
  round(g.max_ns / 1e3, 3) AS max_us,
  round(100.0 * g.total_ns / tot.ns, 2) AS pct,
  CASE WHEN steps.n > 0 THEN round(g.total_ns / 1e6 / steps.n, 3) END
    AS per_step_ms,
  round(100.0 * g.total_ns / tot.ns, 2) AS pct_bar
FROM g JOIN string s ON s.id = g.name_id, tot, steps
ORDER BY g.total_ns DESC, s.text
LIMIT :limit;
