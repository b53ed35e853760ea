-- trace-relink-select-runtime-call.sql — Reads runtime_call. Used by
-- src/trace/trace_relink.c (its table of statements by name).
SELECT r.id, r.tid, r.ts, r.dur, s.text, r.correlation, r.driver
  FROM runtime_call r JOIN string s ON s.id=r.name_id
  WHERE r.id BETWEEN ?3 AND ?4 AND r.file_id=?2
  ORDER BY r.tid, r.ts, r.id
