-- load-snapshot-insert-segment.sql — Prepare every statement; 0 or -1
-- (pErr). Used by src/memory/load_snapshot.c, loader_open().
INSERT INTO segment(run_id, file_id, snapshot_id, idx, device,
  address, total_size, allocated_size, active_size, requested_size,
  stream, segment_type, pool_id, is_expandable, stack_id, n_blocks,
  inactive_bytes, largest_inactive_bytes)
  VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,
  ?17,?18)
