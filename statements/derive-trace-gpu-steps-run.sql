-- derive-trace-gpu-steps-run.sql — The rows of table zTab with rowids [lo,
-- hi] and no step get the step holding their own start, where there is one;
-- a kernel's time counts in that step (pTot, when not NULL).  One UPDATE
-- over the range. Used by src/trace/derive_trace.c, gpu_steps_run().
-- A template: the caller fills its format directives with sqlite3_mprintf()
-- (none may stand in these comments).
-- template arguments (for tests/check_db.c): kernel
UPDATE %s SET step=pf_step_of(rank, ts) WHERE id BETWEEN ?1 AND ?2
  AND step IS NULL AND pf_step_of(rank, ts) IS NOT NULL
  RETURNING rank, step, dur
