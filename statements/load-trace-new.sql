-- load-trace-new.sql — Creates rpc_op. Used by src/trace/load_trace.c,
-- load_trace_new().
CREATE TEMP TABLE IF NOT EXISTS rpc_op(id INTEGER PRIMARY KEY);
CREATE TEMP TABLE IF NOT EXISTS step_op(id INTEGER PRIMARY KEY)
