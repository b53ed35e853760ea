-- merge-archive-run.sql — Reads run. Used by src/ingest/merge.c,
-- merge_archive_run().
SELECT id, name, created_at,
  source_path, content_hash, tool_version, notes FROM run
  WHERE id=?1
