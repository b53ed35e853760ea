-- derive-step-comm-steps.sql — every step of the run with the window that
-- bounds its work (the GPU-side step where the CPU runs ahead, else the CPU
-- step), by rank then step. Used by src/analysis/derive_step_comm.c,
-- derive_step_comm().
SELECT rank, step, coalesce(bound_ts, ts), coalesce(bound_dur, dur)
  FROM step WHERE run_id=?1
 ORDER BY rank, step
