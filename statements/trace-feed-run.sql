-- trace-feed-run.sql — Reads run_file. Used by src/trace/trace_feed.c,
-- trace_feed_run().
SELECT id, coalesce(rank, 0) FROM run_file
  WHERE run_id=?1 AND kind='trace'
