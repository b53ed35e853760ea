-- load-snapshot-insert-snapshot.sql — Prepare every statement; 0 or -1
-- (pErr). Used by src/memory/load_snapshot.c, loader_open().
INSERT INTO snapshot(run_id, file_id, rank, device, layout,
  block_format, n_segments, n_blocks, n_events, has_trace,
  reserved_bytes, allocated_bytes, active_bytes, inactive_bytes,
  pending_free_bytes, internal_free_bytes, alloc_conf,
  expandable_segments, max_split_size, gc_threshold,
  unused_segments, unused_bytes, fragmented_bytes)
  VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,
  ?17,?18,?19,?20,?21,?22,?23)
