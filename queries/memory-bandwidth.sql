-- name: memory-bandwidth
-- description: Memory copies and sets by kind (Memcpy HtoD, DtoH, DtoD,
-- description: PtoP, ...; Memset) per rank: count, bytes, GPU time, achieved
-- description: bandwidth (all bytes / all time) and per-op bandwidth
-- description: statistics (each op's `memory bandwidth (GB/s)` arg where
-- description: Kineto wrote one, computed from the exact duration, else
-- description: bytes / duration), and the time as a share of the rank's steps.
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
-- column: gbps_source      where the per-op GB/s come from: arg (Kineto's bandwidth arg), dur (bytes / duration), dur_whole_us (bytes / a duration the trace truncated to whole us: an upper bound), or several joined by '+'
WITH i AS (
  SELECT rank, kind, dur, bytes, gbps, gbps_source,
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
  round(100.0 * sum(i.dur) / st.dur, 2) AS step_pct,
  (SELECT group_concat(s, '+') FROM (SELECT DISTINCT gbps_source AS s
     FROM hta_memory_bw b WHERE b.run_id = :run AND b.rank = i.rank
       AND b.kind = i.kind AND gbps_source IS NOT NULL ORDER BY 1))
    AS gbps_source
FROM i LEFT JOIN st ON st.rank = i.rank
GROUP BY i.rank, kind
ORDER BY i.rank, kind;
