-- load-trace-insert-rpc-op.sql — record_param_comms ops, so that
-- derive_comm.c need not scan cpu_op. Used by src/trace/load_trace.c (its
-- table of statements by name).
INSERT OR IGNORE INTO temp.rpc_op(id) VALUES(?1)
