-- name: idle-breakdown
-- description: GPU idle time per rank and stream, split by cause: an idle
-- description: interval is the gap before a GPU op (kernel, memcpy, memset)
-- description: that starts after every earlier op of its stream ended.
-- description: host_wait: the op's launch call started after the stream went
-- description: idle (the CPU was late); kernel_wait: otherwise, the gap is
-- description: shorter than hta_setting 'kernel_wait_ns' (30 us); other: the
-- description: rest.  Interval statistics per cause; percentiles interpolate
-- description: linearly between ranks (as numpy/pandas do).  The intervals
-- description: are stored at ingest (table hta_idle_gap, read through the
-- description: view hta_idle_interval, which applies the threshold).
-- param: rank:rank =           only this rank (empty: all ranks)
-- column: rank             rank
-- column: device           GPU ordinal
-- column: stream           CUDA stream
-- column: category         host_wait, kernel_wait or other
-- column: intervals        idle intervals
-- column: idle_ms          total idle time, ms
-- column: share_pct        idle_ms / the stream's idle time, %
-- column: mean_us          mean interval, us
-- column: p50_us           median interval, us
-- column: p95_us           95th percentile interval, us
-- column: max_us           longest interval, us
WITH i AS (
  SELECT rank, device, stream, category, gap_ns,
    row_number() OVER (PARTITION BY rank, device, stream, category
                       ORDER BY gap_ns) - 1 AS k,
    count(*) OVER (PARTITION BY rank, device, stream, category) AS n
  FROM hta_idle_interval
  WHERE run_id = :run AND (:rank IS NULL OR rank = :rank)
),
q AS (
  SELECT rank, device, stream, category, count(*) AS n, sum(gap_ns) AS ns,
    max(gap_ns) AS mx,
    sum(CASE WHEN k = CAST((n - 1) * 0.50 AS INTEGER)
             THEN gap_ns * (1 - ((n - 1) * 0.50 - k))
             WHEN k = CAST((n - 1) * 0.50 AS INTEGER) + 1
             THEN gap_ns * ((n - 1) * 0.50 - (k - 1)) ELSE 0 END) AS p50,
    sum(CASE WHEN k = CAST((n - 1) * 0.95 AS INTEGER)
             THEN gap_ns * (1 - ((n - 1) * 0.95 - k))
             WHEN k = CAST((n - 1) * 0.95 AS INTEGER) + 1
             THEN gap_ns * ((n - 1) * 0.95 - (k - 1)) ELSE 0 END) AS p95
  FROM i GROUP BY rank, device, stream, category
)
SELECT rank, device, stream, category, n AS intervals,
  round(ns / 1e6, 3) AS idle_ms,
  round(100.0 * ns / sum(ns) OVER (PARTITION BY rank, device, stream), 2)
    AS share_pct,
  round(ns / 1e3 / n, 3) AS mean_us,
  round(p50 / 1e3, 3) AS p50_us,
  round(p95 / 1e3, 3) AS p95_us,
  round(mx / 1e3, 3) AS max_us
FROM q
ORDER BY rank, device, stream, category;
