-- export-trace-write-head.sql — Top-level keys before traceEvents. Used by
-- src/report/export_trace.c, write_head().
-- A template: the caller fills its format directives with db_int() (none may
-- stand in these comments).
SELECT max(world_size) FROM run_file WHERE
  run_id=%lld
