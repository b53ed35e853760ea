-- name: launch-overhead
-- description: CUDA runtime/driver calls by name: count and time spent in
-- description: the call (launch overhead), and for calls that launched GPU
-- description: work the launch delay (GPU start minus call start).
-- param: rank:rank =          only this rank (empty: every rank)
-- param: limit:int>=0 = 20      rows to show
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
-- totals from runtime_summary (schema 009), filled at ingest: the same
-- numbers as a GROUP BY over runtime_call joined to what each launched
WITH r AS (
  SELECT * FROM runtime_summary
  WHERE run_id = :run AND (:rank IS NULL OR rank = :rank)
),
d AS (
  SELECT name_id, sum(launches) AS n,
    1.0 * sum(delay_ns) / sum(launches) AS avg_delay,
    max(max_delay_ns) AS max_delay,
    sum(short_launches) AS n_short
  FROM r
  GROUP BY name_id HAVING sum(launches) > 0
),
c AS (
  SELECT name_id, kind, sum(calls) AS calls, sum(total_ns) AS total,
    max(max_ns) AS mx
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
