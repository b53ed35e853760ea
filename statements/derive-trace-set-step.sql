-- derive-trace-set-step.sql — The rows of table zTab (kernel or
-- gpu_mem_op) with rowids [?1, ?2] get step ?3: a run of consecutive rows
-- without a step whose own starts lie in the same step. Used by
-- src/trace/derive_trace.c, gpu_steps_run().
-- A template: the caller fills its format directives with sqlite3_mprintf()
-- (none may stand in these comments).
-- template arguments (for tests/check_db.c): kernel
UPDATE %s SET step=?3 WHERE id BETWEEN ?1 AND ?2
