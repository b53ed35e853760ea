-- name: queue-length
-- description: Launch queue per rank and stream: launch calls whose GPU work
-- description: has not started yet (+1 at the call's start, -1 when its first
-- description: op on the stream starts: a CUDA graph launch is one entry;
-- description: view hta_queue_length holds the time series, one row per
-- description: change).  changes/mean/p50/p75/p95/max are
-- description: over the change points, as HTA reports them; tw_mean weights
-- description: each value by how long it held.  empty_pct: share of the
-- description: stream's queue span with nothing queued (a long empty queue is
-- description: a CPU-bound stream); blocked_ms: time at the runtime's limit
-- description: (table hta_queue_limit: CUDA 1024, ROCm none known) or more,
-- description: where launches block the CPU.
-- param: rank:rank =           only this rank (empty: all ranks)
-- column: rank             rank
-- column: device           GPU ordinal
-- column: stream           CUDA stream
-- column: changes          change points (2 per launch call and stream)
-- column: mean             mean over change points
-- column: p50              median over change points (linear interpolation)
-- column: p75              75th percentile over change points
-- column: p95              95th percentile over change points
-- column: max              largest queue length
-- column: tw_mean          time-weighted mean between first and last change
-- column: empty_pct        time with an empty queue / that span, %
-- column: blocked_ms       time with the queue full, ms
WITH i AS (
  SELECT rank, device, stream, ts, next_ts, queue_length AS v, queue_full,
    row_number() OVER (PARTITION BY rank, device, stream
                       ORDER BY queue_length) - 1 AS k,
    count(*) OVER (PARTITION BY rank, device, stream) AS n
  FROM hta_queue_length
  WHERE run_id = :run AND (:rank IS NULL OR rank = :rank)
)
SELECT rank, device, stream, count(*) AS changes,
  round(avg(v), 2) AS mean,
  round(sum(CASE WHEN k = CAST((n - 1) * 0.50 AS INTEGER)
                 THEN v * (1 - ((n - 1) * 0.50 - k))
                 WHEN k = CAST((n - 1) * 0.50 AS INTEGER) + 1
                 THEN v * ((n - 1) * 0.50 - (k - 1)) ELSE 0 END), 2) AS p50,
  round(sum(CASE WHEN k = CAST((n - 1) * 0.75 AS INTEGER)
                 THEN v * (1 - ((n - 1) * 0.75 - k))
                 WHEN k = CAST((n - 1) * 0.75 AS INTEGER) + 1
                 THEN v * ((n - 1) * 0.75 - (k - 1)) ELSE 0 END), 2) AS p75,
  round(sum(CASE WHEN k = CAST((n - 1) * 0.95 AS INTEGER)
                 THEN v * (1 - ((n - 1) * 0.95 - k))
                 WHEN k = CAST((n - 1) * 0.95 AS INTEGER) + 1
                 THEN v * ((n - 1) * 0.95 - (k - 1)) ELSE 0 END), 2) AS p95,
  max(v) AS max,
  round(sum(v * coalesce(next_ts - ts, 0)) * 1.0
        / max(max(ts) - min(ts), 1), 2) AS tw_mean,
  round(100.0 * sum(CASE WHEN v = 0 THEN coalesce(next_ts - ts, 0) END)
        / max(max(ts) - min(ts), 1), 2) AS empty_pct,
  round(sum(CASE WHEN v >= queue_full
                 THEN coalesce(next_ts - ts, 0) ELSE 0 END) / 1e6, 3)
    AS blocked_ms
FROM i
GROUP BY rank, device, stream
ORDER BY rank, device, stream;
