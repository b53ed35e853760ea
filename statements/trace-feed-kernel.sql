-- trace-feed-kernel.sql — Reads kernel. Used by src/trace/trace_feed.c (its
-- table of statements by name).
SELECT k.id, k.file_id, k.ts, k.dur, k.name_id, k.device, k.stream,
  k.runtime_id, k.op_id, k.step,
  CASE WHEN k.step IS NOT NULL
    THEN (SELECT r.step FROM runtime_call r WHERE r.id = k.runtime_id) END,
  s.text FROM kernel k
  JOIN string s ON s.id=k.name_id WHERE k.run_id=?1
