-- step-bound-gpu-rows.sql — the launched GPU rows of one run in a trace
-- table (kernel or gpu_mem_op) with the step of their launch call, for the
-- step bound's GPU spans. Used by src/trace/derive_step_bound.c,
-- scan_gpu(): ?1 the run, ?2 and ?3 its rowid range in the table.
-- A template: the caller fills its format directives with sqlite3_mprintf()
-- (none may stand in these comments).
-- template arguments (for tests/check_db.c): kernel
SELECT x.rank, (SELECT r.step FROM runtime_call r WHERE r.id = x.runtime_id),
  x.ts, x.ts + x.dur
FROM "%w" x
WHERE x.id BETWEEN ?2 AND ?3 AND +x.run_id = ?1
  AND x.step IS NOT NULL AND x.runtime_id IS NOT NULL
