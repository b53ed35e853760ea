-- trace-ids-range.sql — select. Used by src/trace/trace_ids.c,
-- trace_ids_range(): the recorded id range of trace file ?1.
SELECT id_base, id_last FROM trace_id_base WHERE file_id = ?1
