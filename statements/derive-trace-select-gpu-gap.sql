-- derive-trace-select-gpu-gap.sql — Ranks with no ProfilerStep annotation:
-- split their GPU timeline at idle gaps of at least max(1 ms, half the
-- largest gap); with no such gap the whole profiled window is one step.
-- CPU-only ranks get one step spanning their CPU ops (from the spans).
-- Returns the number of ranks handled this way. Used by
-- src/trace/derive_trace.c, derive_gap_steps().
SELECT ts, dur FROM gpu_gap WHERE run_id=?1 AND rank=?2
  AND dur >= max(1000000, (SELECT max(largest_gap_ns)/2 FROM gpu_busy
    WHERE run_id=?1 AND rank=?2)) ORDER BY ts
