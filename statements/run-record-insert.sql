-- run-record-insert.sql — Inserts rows into run. Used by
-- src/ingest/run_record.c, run_record_insert().
INSERT INTO run(name, created_at, source_path, content_hash, tool_version)
  VALUES(?1, ?2, ?3, ?4, ?5)
