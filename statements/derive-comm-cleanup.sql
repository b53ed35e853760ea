-- derive-comm-cleanup.sql — Drops the temp tables of the collective pass.
-- Used by src/comm/derive_comm.c.
DROP TABLE IF EXISTS temp.cm_cpu_name;
DROP TABLE IF EXISTS temp.cm_parent;
DROP TABLE IF EXISTS temp.cm_kernel;
DROP TABLE IF EXISTS temp.rpc_op;
