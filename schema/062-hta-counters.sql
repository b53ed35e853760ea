-- 062-hta-counters.sql — the memory bandwidth in use over time, HTA's
-- memory bandwidth time series (get_memory_bw_time_series): per rank,
-- device and kind ('Memcpy HtoD', ..., 'Memset'), +GB/s of each copy or
-- set at its start and -GB/s at its end (hta_memory_bw's per-op figure),
-- summed; one row per change, the value holding until next_ts.  With the
-- launch queue (hta_queue_length) it is what `export-trace` writes as
-- counter tracks.  Ops without a bandwidth (no bytes) are left out.
CREATE VIEW hta_memory_bw_series AS
WITH ev AS (
  SELECT run_id, rank, device, kind, ts, gbps AS d, row_id, 0 AS e
  FROM hta_memory_bw WHERE gbps IS NOT NULL
  UNION ALL
  SELECT run_id, rank, device, kind, ts + dur, -gbps, row_id, 1
  FROM hta_memory_bw WHERE gbps IS NOT NULL
)
SELECT run_id, rank, device, kind, ts,
  max(0.0, round(sum(d) OVER w, 6)) AS gbps,
  lead(ts) OVER w AS next_ts
FROM ev
WINDOW w AS (PARTITION BY run_id, rank, device, kind
             ORDER BY ts, e DESC, row_id ROWS UNBOUNDED PRECEDING);
