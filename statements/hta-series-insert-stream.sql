-- hta-series-insert-stream.sql — one GPU stream of a rank: the queue
-- statistics, then its idle intervals and queue changes as JSON arrays
-- (schema 124). Used by src/analysis/derive_hta_series.c, store_stream().
INSERT INTO hta_stream(run_id, rank, device, stream, idle_n, host_wait_lo,
  queue_n, queue_t0, queue_sum, queue_max, p50_lo, p50_hi, p75_lo, p75_hi,
  p95_lo, p95_hi, queue_area, queue_span, queue_empty_ns, queue_blocked_ns,
  common_full, common_ops, idle_gaps, queue_points)
VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
