-- derive-trace-insert-steps.sql — Steps from ProfilerStep#N, in every trace
-- generation (first occurrence per rank and number wins): 1. the CPU side:
-- user_annotation ranges (2022+) and ops of category Operator / cpu_op
-- (2021: the trace loader notes their ids in temp.step_op, so cpu_op is not
-- scanned): source 'ProfilerStep'; 2. Used by src/trace/derive_trace.c,
-- derive_steps().
INSERT OR IGNORE INTO step(run_id, rank, step, ts, dur, source)
  SELECT ?1,?2,?3,?4,?5,?6 WHERE ?6='ProfilerStep' OR NOT EXISTS
  (SELECT 1 FROM step WHERE run_id=?1 AND rank=?2
   AND source='ProfilerStep')
