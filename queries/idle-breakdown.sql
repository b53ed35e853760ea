-- name: idle-breakdown
-- description: GPU idle time per rank and stream, split by cause: an idle
-- description: interval is the gap before a GPU op (kernel, memcpy, memset)
-- description: that starts after every earlier op of its stream ended.
-- description: host_wait: the op's launch call started after the stream went
-- description: idle (the CPU was late); kernel_wait: otherwise, the gap is
-- description: shorter than hta_setting 'kernel_wait_ns' (30 us); other: the
-- description: rest.  Interval statistics per cause; percentiles interpolate
-- description: linearly between ranks (as numpy/pandas do).  The intervals
-- description: are stored at ingest (table hta_stream, per stream in cause
-- description: and gap order; view hta_idle_interval lists them with the
-- description: category the threshold gives when read).
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
-- A stream's intervals are its JSON array hta_stream.idle_gaps (schema
-- 124) of [gap_ns, row_id], without a host wait first (elements before
-- host_wait_lo), each part in gap order: so those of each cause are
-- consecutive and sorted whatever the threshold, one pass counts them,
-- and the k-th of a cause is element lo + k (the definition with window
-- functions: tests/oracle/queries/idle-breakdown.sql).
WITH c AS (
  SELECT s.rank, s.device, s.stream, i.key AS id, i.value ->> 0 AS gap_ns,
    CASE WHEN i.key >= s.host_wait_lo THEN 0
         WHEN (i.value ->> 0) < (SELECT value FROM hta_setting
                                 WHERE name = 'kernel_wait_ns') THEN 1
         ELSE 2 END AS cat
  FROM hta_stream s
  JOIN json_each(s.idle_gaps) i
  WHERE s.run_id = :run AND (:rank IS NULL OR s.rank = :rank)
    AND s.idle_n > 0
),
a AS MATERIALIZED (
  SELECT rank, device, stream,
    sum(cat = 0) AS n0, sum(CASE WHEN cat = 0 THEN gap_ns END) AS ns0,
    max(CASE WHEN cat = 0 THEN gap_ns END) AS mx0,
    min(CASE WHEN cat = 0 THEN id END) AS lo0,
    sum(cat = 1) AS n1, sum(CASE WHEN cat = 1 THEN gap_ns END) AS ns1,
    max(CASE WHEN cat = 1 THEN gap_ns END) AS mx1,
    min(CASE WHEN cat = 1 THEN id END) AS lo1,
    sum(cat = 2) AS n2, sum(CASE WHEN cat = 2 THEN gap_ns END) AS ns2,
    max(CASE WHEN cat = 2 THEN gap_ns END) AS mx2,
    min(CASE WHEN cat = 2 THEN id END) AS lo2
  FROM c GROUP BY rank, device, stream
),
q AS (
  SELECT rank, device, stream, 'host_wait' AS category, n0 AS n, ns0 AS ns,
    mx0 AS mx, lo0 AS lo FROM a WHERE n0 > 0
  UNION ALL
  SELECT rank, device, stream, 'kernel_wait', n1, ns1, mx1, lo1
  FROM a WHERE n1 > 0
  UNION ALL
  SELECT rank, device, stream, 'other', n2, ns2, mx2, lo2 FROM a WHERE n2 > 0
),
k AS (
  SELECT q.*,
    CAST((n - 1) * 0.50 AS INTEGER) AS k50,
    CAST((n - 1) * 0.95 AS INTEGER) AS k95
  FROM q
),
p AS (
  SELECT k.rank, k.device, k.stream, category, n, ns, mx,
    json_extract(s.idle_gaps, '$[' || (lo + k50) || '][0]')
      * (1 - ((n - 1) * 0.50 - k50))
    + CASE WHEN k50 + 1 < n
        THEN json_extract(s.idle_gaps, '$[' || (lo + k50 + 1) || '][0]')
             * ((n - 1) * 0.50 - k50)
        ELSE 0 END AS p50,
    json_extract(s.idle_gaps, '$[' || (lo + k95) || '][0]')
      * (1 - ((n - 1) * 0.95 - k95))
    + CASE WHEN k95 + 1 < n
        THEN json_extract(s.idle_gaps, '$[' || (lo + k95 + 1) || '][0]')
             * ((n - 1) * 0.95 - k95)
        ELSE 0 END AS p95
  FROM k
  JOIN hta_stream s ON s.run_id = :run AND s.rank = k.rank
    AND s.device = k.device AND s.stream = k.stream
)
SELECT rank, device, stream, category, n AS intervals,
  round(ns / 1e6, 3) AS idle_ms,
  round(100.0 * ns / sum(ns) OVER (PARTITION BY rank, device, stream), 2)
    AS share_pct,
  round(ns / 1e3 / n, 3) AS mean_us,
  round(p50 / 1e3, 3) AS p50_us,
  round(p95 / 1e3, 3) AS p95_us,
  round(mx / 1e3, 3) AS max_us
FROM p
ORDER BY rank, device, stream, category;
