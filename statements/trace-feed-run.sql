-- trace-feed-run.sql — The trace files of run ?1 with their rank (0 when
-- unknown). Used by src/trace/trace_feed.c, trace_feed_run().
SELECT id, coalesce(rank, 0) FROM run_file
  WHERE run_id=?1 AND kind='trace'
