-- export-derived-memory-bandwidth.sql — Reads hta_memory_bw_series. Used by
-- src/report/export_derived.c (its table of statements by name).
SELECT printf('GPU %d %s (GB/s)', coalesce(device, 0), kind),
  max(ts, ?3), 'GB/s', gbps
  FROM hta_memory_bw_series WHERE run_id = ?1 AND rank = ?2 AND ts < ?4
  AND coalesce(next_ts, ?4) > ?3 AND coalesce(next_ts, ts + 1) > ts
  ORDER BY device, kind, ts
