-- load-trace-new.sql — The temp tables the trace loader notes
-- record_param_comms and ProfilerStep ops in (see loader-notes.sql). Used by
-- src/trace/load_trace.c, load_trace_new().
CREATE TEMP TABLE IF NOT EXISTS rpc_op(id INTEGER PRIMARY KEY);
CREATE TEMP TABLE IF NOT EXISTS step_op(id INTEGER PRIMARY KEY)
