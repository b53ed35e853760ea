-- derive-trace-create-step-op.sql — Steps from ProfilerStep#N, in every
-- trace generation (first occurrence per rank and number wins): 1. the CPU
-- side: user_annotation ranges (2022+) and ops of category Operator / cpu_op
-- (2021: the trace loader notes their ids in temp.step_op, so cpu_op is not
-- scanned): source 'ProfilerStep'; 2. Used by src/trace/derive_trace.c,
-- derive_steps().
CREATE TEMP TABLE IF NOT EXISTS step_op(id INTEGER PRIMARY KEY)
