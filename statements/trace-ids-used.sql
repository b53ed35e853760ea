-- trace-ids-used.sql — update. Used by src/trace/trace_ids.c,
-- trace_ids_used(): trace file ?1 loaded, its range ends at the largest
-- id it used (id_base + ?2), so that the next file numbers on from there.
UPDATE trace_id_base SET id_last = id_base + ?2 WHERE file_id = ?1
