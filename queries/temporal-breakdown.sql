-- name: temporal-breakdown
-- description: Per rank and GPU, the GPU active span (first GPU activity
-- description: start to last end) split into idle, compute and non-compute
-- description: time, which add up to the span: compute = union of compute
-- description: kernels, non-compute = GPU busy with communication or memory
-- description: work only, idle = nothing running.  Kernel classes come from
-- description: the coarse kernel categories (view hta_overlap_piece,
-- description: summed at ingest: table hta_overlap_sum, view hta_temporal).
-- param: rank:rank =           only this rank (empty: all ranks)
-- column: rank             rank
-- column: device           GPU ordinal
-- column: span_ms          first GPU start to last GPU end, ms
-- column: idle_ms          no GPU activity, ms
-- column: compute_ms       at least one compute kernel running, ms
-- column: non_compute_ms   only communication / memory activity, ms
-- column: idle_pct         idle_ms / span_ms, %
-- column: compute_pct      compute_ms / span_ms, %
-- column: non_compute_pct  non_compute_ms / span_ms, %
WITH t AS (               -- the sums of schema 100 per (rank, device)
  SELECT rank, device, span_ns, idle_ns, compute_ns, non_compute_ns
  FROM hta_temporal
  WHERE run_id = :run AND (:rank IS NULL OR rank = :rank)
)
SELECT rank, device,
  round(span_ns / 1e6, 3) AS span_ms,
  round(idle_ns / 1e6, 3) AS idle_ms,
  round(compute_ns / 1e6, 3) AS compute_ms,
  round(non_compute_ns / 1e6, 3) AS non_compute_ms,
  round(100.0 * idle_ns / max(span_ns, 1), 2) AS idle_pct,
  round(100.0 * compute_ns / max(span_ns, 1), 2) AS compute_pct,
  round(100.0 * non_compute_ns / max(span_ns, 1), 2) AS non_compute_pct
FROM t
ORDER BY rank, device;
