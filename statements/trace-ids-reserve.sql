-- trace-ids-reserve.sql — insert. Used by src/trace/trace_ids.c,
-- trace_ids_reserve(): trace file ?1 of run ?2 takes the ids above every
-- cpu_op and runtime_call id and every recorded range (schema 129), up to
-- ?3 of them but not past (?1 << 32) + 2^32 - 1, where the file's ids
-- were numbered before.  Each bound is one B-tree descent or a read of
-- trace_id_base's rows (one a trace file).
INSERT INTO trace_id_base(file_id, run_id, id_base, id_last)
SELECT ?1, ?2, b, min(b + ?3, (?1 << 32) + 4294967295) FROM (SELECT
  max(coalesce((SELECT max(id) FROM cpu_op), 0),
      coalesce((SELECT max(id) FROM runtime_call), 0),
      coalesce((SELECT max(id_last) FROM trace_id_base), 0)) AS b)
RETURNING id_base, id_last
