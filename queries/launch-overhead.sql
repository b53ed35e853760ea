-- name: launch-overhead
-- description: CUDA runtime/driver calls by name: count and time spent in
-- description: the call (launch overhead), and for calls that launched GPU
-- description: work the launch delay (GPU start minus call start).
-- param: rank =          only this rank (empty: every rank)
-- param: limit = 20      rows to show
-- column: name           runtime or driver API (cudaLaunchKernel, ...)
-- column: kind           'runtime' or 'driver'
-- column: calls          number of calls
-- column: total_ms       time inside the calls, ms
-- column: avg_us         mean call duration, µs
-- column: max_us         longest call, µs
-- column: launches       GPU records (kernel/memcpy/memset) these calls launched
-- column: avg_delay_us   mean launch delay, µs
-- column: max_delay_us   largest launch delay, µs
-- column: short_kernels_pct  share of launched kernels shorter than 10 µs, %
WITH r AS (
  SELECT id, name_id, kind, ts, dur FROM runtime_call
  WHERE run_id = :run AND (:rank IS NULL OR rank = :rank)
),
g AS (
  SELECT runtime_id, ts, dur FROM kernel WHERE run_id = :run
    AND runtime_id IS NOT NULL AND (:rank IS NULL OR rank = :rank)
  UNION ALL
  SELECT runtime_id, ts, dur FROM gpu_mem_op WHERE run_id = :run
    AND runtime_id IS NOT NULL AND (:rank IS NULL OR rank = :rank)
),
d AS (
  SELECT r.name_id, count(*) AS n, avg(g.ts - r.ts) AS avg_delay,
    max(g.ts - r.ts) AS max_delay,
    sum(g.dur < 10000) AS n_short
  FROM g JOIN r ON r.id = g.runtime_id
  GROUP BY r.name_id
),
c AS (
  SELECT name_id, kind, count(*) AS calls, sum(dur) AS total, max(dur) AS mx
  FROM r GROUP BY name_id, kind
)
SELECT s.text AS name, c.kind, c.calls,
  round(c.total / 1e6, 3) AS total_ms,
  round(c.total / 1e3 / c.calls, 3) AS avg_us,
  round(c.mx / 1e3, 3) AS max_us,
  coalesce(d.n, 0) AS launches,
  round(d.avg_delay / 1e3, 3) AS avg_delay_us,
  round(d.max_delay / 1e3, 3) AS max_delay_us,
  round(100.0 * d.n_short / d.n, 1) AS short_kernels_pct
FROM c JOIN string s ON s.id = c.name_id
LEFT JOIN d ON d.name_id = c.name_id
ORDER BY c.total DESC, s.text
LIMIT :limit;
