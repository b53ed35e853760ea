-- hta-series-insert-stream.sql — one GPU stream of a rank: where its idle
-- intervals and queue changes are, and the queue statistics. Used by
-- src/analysis/derive_hta_series.c, store_stream().
INSERT INTO hta_stream(run_id, rank, device, stream, idle_first, idle_n,
  queue_first, queue_n, queue_t0, queue_sum, queue_max, p50_lo, p50_hi, p75_lo,
  p75_hi, p95_lo, p95_hi, queue_area, queue_span, queue_empty_ns,
  queue_blocked_ns)
VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
