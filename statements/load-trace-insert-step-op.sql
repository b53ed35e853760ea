-- load-trace-insert-step-op.sql — ProfilerStep#N ops (2021 traces: category
-- Operator), so that derive_trace.c finds the steps without scanning cpu_op.
-- Used by src/trace/load_trace.c (its table of statements by name).
INSERT OR IGNORE INTO temp.step_op(id) VALUES(?1)
