-- name: queue-length
-- description: Launch queue per rank and stream: launch calls whose GPU work
-- description: has not started yet (+1 at the call's start, -1 when its first
-- description: op on the stream starts: a CUDA graph launch is one entry;
-- description: view hta_queue_length holds the time series, one row per
-- description: change; table hta_stream the statistics, from the sweep at
-- description: ingest).  changes/mean/p50/p75/p95/max are
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
-- The sweep at ingest wrote each stream's numbers (table hta_stream,
-- schema 106); these are the expressions the definition over every change
-- point computes (tests/oracle/queries/queue-length.sql), from them: the
-- lengths at positions k and k+1 of the sorted lengths for each
-- percentile, the sum of lengths, the length x time area, the span, the
-- time at 0 and the time at the limit or more.
WITH s AS (
  SELECT rank, device, stream, queue_n AS n, queue_sum, queue_max,
    p50_lo, p50_hi, p75_lo, p75_hi, p95_lo, p95_hi, queue_area, queue_span,
    queue_empty_ns, queue_blocked_ns,
    (queue_n - 1) * 0.50 - CAST((queue_n - 1) * 0.50 AS INTEGER) AS f50,
    (queue_n - 1) * 0.75 - CAST((queue_n - 1) * 0.75 AS INTEGER) AS f75,
    (queue_n - 1) * 0.95 - CAST((queue_n - 1) * 0.95 AS INTEGER) AS f95
  FROM hta_stream
  WHERE run_id = :run AND (:rank IS NULL OR rank = :rank) AND queue_n > 0
)
SELECT rank, device, stream, n AS changes,
  round(queue_sum * 1.0 / n, 2) AS mean,
  round(p50_lo * (1 - f50) + coalesce(p50_hi * f50, 0), 2) AS p50,
  round(p75_lo * (1 - f75) + coalesce(p75_hi * f75, 0), 2) AS p75,
  round(p95_lo * (1 - f95) + coalesce(p95_hi * f95, 0), 2) AS p95,
  queue_max AS max,
  round(queue_area * 1.0 / max(queue_span, 1), 2) AS tw_mean,
  round(100.0 * queue_empty_ns / max(queue_span, 1), 2) AS empty_pct,
  round(queue_blocked_ns / 1e6, 3) AS blocked_ms
FROM s
ORDER BY rank, device, stream;
