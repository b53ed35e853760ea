-- merge-shard-seen.sql — How many of the shard's files the target holds
-- already (same content hash and size); *pRun: the run of one of them.  -1
-- on error (pMsg). Used by src/ingest/merge.c, shard_seen().
SELECT run_id FROM run_file
  WHERE hash=?1 AND bytes=?2 LIMIT 1
