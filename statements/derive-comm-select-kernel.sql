-- derive-comm-select-kernel.sql — Reads kernel. Used by
-- src/comm/derive_comm.c, derive_comm_run().
-- A template: the caller fills its format directives with db_int() (none may
-- stand in these comments).
SELECT EXISTS(SELECT 1 FROM kernel WHERE run_id=%lld)
  OR EXISTS(SELECT 1 FROM temp.cm_cpu_name)
