-- name: memory-bandwidth
-- description: Memory copies and sets by kind (Memcpy HtoD, DtoH, DtoD,
-- description: PtoP, ...; Memset) per rank: count, bytes, GPU time, achieved
-- description: bandwidth (all bytes / all time) and per-op bandwidth
-- description: statistics (bytes / duration of each op, from the trace's
-- description: bytes arg), and the time as a share of the rank's steps.
-- description: View hta_memory_bw holds the per-op time series.
-- param: rank:rank =           only this rank (empty: all ranks)
-- column: rank             rank
-- column: kind             Memcpy DIRECTION or Memset
-- column: count            operations
-- column: bytes            bytes moved
-- column: total_us         GPU time, us
-- column: achieved_gbps    bytes / total time, GB/s
-- column: mean_gbps        mean of the per-op bandwidths, GB/s
-- column: p50_gbps         median per-op bandwidth (linear interpolation)
-- column: max_gbps         highest per-op bandwidth
-- column: step_pct         total time / the rank's summed step time, %
WITH i AS (
  SELECT rank, kind, dur, bytes, gbps,
    -- ops without a bandwidth (no bytes recorded, zero duration) rank
    -- after every op with one: the percentile is over the n that have one
    row_number() OVER (PARTITION BY rank, kind
                       ORDER BY gbps IS NULL, gbps) - 1 AS k,
    count(gbps) OVER (PARTITION BY rank, kind) AS n
  FROM hta_memory_bw
  WHERE run_id = :run AND (:rank IS NULL OR rank = :rank)
),
st AS (
  SELECT rank, sum(dur) AS dur FROM step WHERE run_id = :run GROUP BY rank
)
SELECT i.rank, kind, count(*) AS count, sum(bytes) AS bytes,
  round(sum(i.dur) / 1e3, 3) AS total_us,
  round(sum(bytes) * 1.0 / max(sum(i.dur), 1), 4) AS achieved_gbps,
  round(avg(gbps), 4) AS mean_gbps,
  round(sum(CASE WHEN gbps IS NULL THEN 0
                 WHEN k = CAST((n - 1) * 0.50 AS INTEGER)
                 THEN gbps * (1 - ((n - 1) * 0.50 - k))
                 WHEN k = CAST((n - 1) * 0.50 AS INTEGER) + 1
                 THEN gbps * ((n - 1) * 0.50 - (k - 1)) ELSE 0 END), 4)
    AS p50_gbps,
  round(max(gbps), 4) AS max_gbps,
  round(100.0 * sum(i.dur) / st.dur, 2) AS step_pct
FROM i LEFT JOIN st ON st.rank = i.rank
GROUP BY i.rank, kind
ORDER BY i.rank, kind;
