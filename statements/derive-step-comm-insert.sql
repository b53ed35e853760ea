-- derive-step-comm-insert.sql — one step's communication time and its
-- exposed part (no compute kernel beside it), both inside the step's window.
-- Used by src/analysis/derive_step_comm.c, derive_step_comm().
INSERT INTO step_comm(run_id, rank, step, comm_ns, exposed_ns)
VALUES(?1, ?2, ?3, ?4, ?5)
