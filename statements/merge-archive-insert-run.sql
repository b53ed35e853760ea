-- merge-archive-insert-run.sql — the next id, above the floor when there is
-- one (AUTOINCREMENT: never below an id used before). Used by
-- src/ingest/merge.c, archive_new_run().
INSERT INTO run(id, name, created_at, source_path,
  content_hash, tool_version, notes) VALUES(max(?8,
  coalesce((SELECT max(id) FROM run), 0), coalesce((SELECT
  seq FROM sqlite_sequence WHERE name = 'run'), 0)) + 1,
  ?1 || CASE WHEN ?7>1 THEN '-' || ?7 ELSE '' END, ?2, ?3,
  ?4, ?5, ?6)
