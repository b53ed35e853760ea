-- derive-trace-insert-gap-steps.sql — Ranks with no ProfilerStep annotation:
-- split their GPU timeline at idle gaps of at least max(1 ms, half the
-- largest gap); with no such gap the whole profiled window is one step.
-- CPU-only ranks get one step spanning their CPU ops (from the spans).
-- Returns the number of ranks handled this way. Used by
-- src/trace/derive_trace.c, derive_gap_steps().
INSERT OR IGNORE INTO step(run_id, rank, step, ts, dur, source)
  VALUES(?1,?2,?3,?4,?5,'gap')
