-- name: gpu-utilization
-- description: Per GPU: the union of kernel, memcpy and memset intervals
-- description: against the wall span from the first to the last GPU
-- description: activity, and the idle gaps between them.
-- param: rank:rank =           only this rank (empty: every rank)
-- column: rank            rank
-- column: device          GPU ordinal
-- column: wall_ms         first activity start to last activity end, ms
-- column: busy_ms         time at least one kernel/memcpy/memset ran, ms
-- column: busy_pct        busy_ms / wall_ms, %
-- column: kernel_ms       sum of kernel durations (overlaps counted twice), ms
-- column: memcpy_ms       sum of memcpy durations, ms
-- column: memset_ms       sum of memset durations, ms
-- column: idle_gaps       number of idle gaps
-- column: idle_ms         total idle time inside the wall span, ms
-- column: largest_gap_ms  longest idle gap, ms
-- column: largest_gap_after  activity that ran just before the longest gap
-- column: busy_pct_bar    busy_pct as a bar (table output)
SELECT b.rank, b.device,
  round((b.last_end - b.first_ts) / 1e6, 3) AS wall_ms,
  round(b.busy_ns / 1e6, 3) AS busy_ms,
  round(100.0 * b.busy_ns / max(b.last_end - b.first_ts, 1), 2) AS busy_pct,
  round(b.kernel_ns / 1e6, 3) AS kernel_ms,
  round(b.memcpy_ns / 1e6, 3) AS memcpy_ms,
  round(b.memset_ns / 1e6, 3) AS memset_ms,
  b.n_gaps AS idle_gaps,
  round(b.idle_ns / 1e6, 3) AS idle_ms,
  round(b.largest_gap_ns / 1e6, 3) AS largest_gap_ms,
  (SELECT s.text FROM gpu_gap g JOIN string s ON s.id = g.before_name_id
   WHERE g.run_id = b.run_id AND g.rank = b.rank AND g.device = b.device
   ORDER BY g.dur DESC LIMIT 1) AS largest_gap_after,
  round(100.0 * b.busy_ns / max(b.last_end - b.first_ts, 1), 2)
    AS busy_pct_bar
FROM gpu_busy b
WHERE b.run_id = :run AND (:rank IS NULL OR b.rank = :rank)
ORDER BY b.rank, b.device;
