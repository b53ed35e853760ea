-- merge-acc-add.sql — The traces' world sizes and ranks, and the steps'
-- span, of run runId of dbX (a shard or the target) into the accumulator,
-- labelled zLabel, after checking them against what it holds.  Returns 0, or
-- 2 (another job, colliding ranks) / 1 (unreadable) with the message in
-- pMsg. Used by src/ingest/merge.c, acc_add().
SELECT 0, world_size FROM run_file WHERE run_id=?1 AND kind='trace'
  AND world_size IS NOT NULL
  UNION SELECT 1, rank FROM run_file WHERE run_id=?1 AND kind='trace'
  AND rank IS NOT NULL
  UNION SELECT 2, min(ts) FROM step WHERE run_id=?1
  UNION SELECT 3, max(ts+dur) FROM step WHERE run_id=?1
  ORDER BY 1, 2
