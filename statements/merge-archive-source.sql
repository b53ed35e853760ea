-- merge-archive-source.sql — --summaries-only: every run of source zPath
-- into a run of its own of the target, with the summary tables only.  0, or
-- the exit code (pMsg). Used by src/ingest/merge.c, archive_source().
SELECT id, name, created_at, source_path,
  content_hash, tool_version, notes FROM run ORDER BY id
