-- derive-trace-stepless-rows.sql — The rows of table zTab (kernel or
-- gpu_mem_op) with rowids [?1, ?2] that have no step (NULL, or the
-- TRACE_STEP_PENDING the writer gives it: src/trace/trace_totals.h), with
-- their step column, in rowid order: the GPU rows that came without a
-- step, for the step holding their own start (tests/oracle/links.sql, spec
-- gpu_launch, is the definition). Used by
-- src/trace/derive_trace.c, gpu_steps_run().
-- A template: the caller fills its format directives with sqlite3_mprintf()
-- (none may stand in these comments).
-- template arguments (for tests/check_db.c): kernel
SELECT id, rank, ts, dur, step FROM %s
  WHERE id BETWEEN ?1 AND ?2 AND (step IS NULL OR step < 0)
