-- comm-kernel-names.sql — the string ids of the run's communication
-- kernels (the comm_kernel view, the one definition), sorted for a binary
-- search. Used by src/trace/derive_trace.c (read once for the GPU and wall
-- sweeps) and src/analysis/derive_step_comm.c, derive_step_comm().
SELECT DISTINCT name_id FROM comm_kernel WHERE run_id=?1 ORDER BY 1
