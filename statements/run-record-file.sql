-- run-record-file.sql — Inserts rows into run_file. Used by
-- src/ingest/run_record.c, run_record_file().
INSERT INTO run_file(run_id, path, kind, bytes, hash)
  VALUES(?1,?2,?3,?4,?5)
