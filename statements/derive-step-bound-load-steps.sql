-- derive-step-bound-load-steps.sql — The run's steps into a new array sorted
-- by (rank, step); *pn gets the count.  NULL with *pn 0 when there are none;
-- -1 in *pn on error. Used by src/trace/derive_step_bound.c, load_steps().
SELECT rank, step, ts, ts+dur FROM step
  WHERE run_id=?1
