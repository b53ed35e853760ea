-- load-snapshot-insert-stack-frame.sql — Prepare every statement; 0 or -1
-- (pErr). Used by src/memory/load_snapshot.c, loader_open().
INSERT INTO stack_frame(run_id, stack_id, pos, frame_id)
  VALUES(?1,?2,?3,?4)
