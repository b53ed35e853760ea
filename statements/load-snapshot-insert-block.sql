-- load-snapshot-insert-block.sql — Prepare every statement; 0 or -1 (pErr).
-- Used by src/memory/load_snapshot.c, loader_open().
INSERT INTO block(run_id, file_id, snapshot_id, segment_id, idx,
  address, size, requested_size, state, stack_id, prev_state,
  next_state, alloc_idx, free_idx)
  VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)
