-- load-snapshot-insert-memory-annotation.sql — Prepare every statement; 0 or
-- -1 (pErr). Used by src/memory/load_snapshot.c, loader_open().
INSERT INTO memory_annotation(run_id, file_id, snapshot_id, time_us,
  stage, name) VALUES(?1,?2,?3,?4,?5,?6)
