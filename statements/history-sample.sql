-- history-sample.sql — The per-step samples of metric ?2 in run ?1, by step,
-- with whether each step is steady. Used by src/history/history.c.
SELECT value, step, steady FROM run_step_sample WHERE run_id=?1
  AND metric=?2 ORDER BY step
