-- trace-relink-select-cpu-op.sql — Reads cpu_op. Used by
-- src/trace/trace_relink.c (its table of statements by name).
SELECT o.id, o.tid, o.ts, o.dur, s.text, NULL, NULL, o.external_id
  FROM cpu_op o JOIN string s ON s.id=o.name_id
  WHERE o.id BETWEEN ?3 AND ?4 AND o.file_id=?2
  ORDER BY o.tid, o.ts, o.dur DESC, o.external_id IS NULL,
  o.external_id, o.id
