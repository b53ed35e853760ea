-- history-sample.sql — Reads run_step_sample. Used by src/history/history.c.
SELECT value, step, steady FROM run_step_sample WHERE run_id=?1
  AND metric=?2 ORDER BY step
