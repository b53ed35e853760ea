-- merge-run-target.sql — The run the shards go into: the run named zName
-- when the target has it (the shards are added to it, and its ranks count in
-- the checks), else a new one, created when the first shard was ingested
-- (zCreated, "" = now).  Returns 0, or the exit code with the message in
-- pMsg. Used by src/ingest/merge.c, run_target().
INSERT INTO run(name, created_at, source_path, content_hash,
  tool_version) VALUES(?1, ?2, '', '', ?3)
