-- merge-rank-steps.sql — The steps of rank `rank` of run runId of dbX:
-- numbers and time span (a[0..3]: first and last step number, first start,
-- last end); returns 1 when it has steps and every trace of the rank is on
-- an epoch clock, 0 when not, -1 on error. Used by src/ingest/merge.c,
-- rank_steps().
SELECT min(step), max(step), min(ts), max(ts+dur), count(*),
  (SELECT count(*) FROM run_file WHERE run_id=?1 AND rank=?2
   AND kind='trace' AND (time_regime IS NULL
   OR time_regime='unknown_origin'))
  FROM step WHERE run_id=?1 AND rank=?2
