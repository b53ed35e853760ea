-- 010-drop-top-op-index.sql — databases from before 2026-11-22 carry
-- cpu_op_top, a partial index of the top-level ops in time order that
-- only the wall-time sweep read.  The sweep now takes its intervals from
-- memory while a trace loads (src/trace/trace_spans.c) or, when that store gives
-- up, lets SQLite sort them; the index would only slow every later ingest
-- down.  (The time-ordered kernel_run / runtime_call_run indexes of those
-- databases stay: queries may use them, and rebuilding them as the
-- one-column indexes of new databases would cost a pass over every run.)
DROP INDEX IF EXISTS cpu_op_top;
