-- load-snapshot-select-frame.sql — Prepare every statement; 0 or -1 (pErr).
-- Used by src/memory/load_snapshot.c, loader_open().
SELECT id FROM frame WHERE run_id=?1 AND filename=?2 AND line=?3
  AND name=?4
