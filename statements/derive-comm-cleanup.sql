-- derive-comm-cleanup.sql — Drops cm_cpu_name. Used by
-- src/comm/derive_comm.c.
DROP TABLE IF EXISTS temp.cm_cpu_name;
DROP TABLE IF EXISTS temp.cm_parent;
DROP TABLE IF EXISTS temp.cm_kernel;
DROP TABLE IF EXISTS temp.rpc_op;
