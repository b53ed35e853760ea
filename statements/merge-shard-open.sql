-- merge-shard-open.sql — Open shard s read-only: a profan database at this
-- profan's schema version holding exactly one run.  Returns 0, or the exit
-- code with the message in pMsg. Used by src/ingest/merge.c, shard_open().
SELECT count(*), max(id), max(name),
  max(created_at) FROM run
