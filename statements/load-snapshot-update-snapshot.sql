-- load-snapshot-update-snapshot.sql — Prepare every statement; 0 or -1
-- (pErr). Used by src/memory/load_snapshot.c, loader_open().
UPDATE snapshot SET net_delta_bytes=?2, baseline_bytes=?3,
  trace_live_bytes=?4, n_orphan_frees=?5, peak_allocated_bytes=?6,
  peak_event_idx=?7, peak_time_us=?8, peak_reserved_bytes=?9,
  max_reserved_bytes=?10, first_time_us=?11, last_time_us=?12
  WHERE id=?1
