-- cmd-history-check-notes.sql — The notes on how the runs' steps were
-- measured, one line each, to f: step times from the GPU side (the CPU runs
-- ahead: step.bound_by 'gpu' where the step time differs from the CPU step
-- by more than 1  percent), and steps found from GPU idle gaps (no
-- ProfilerStep annotations). Used by src/cli/cmd_history.c, check_notes().
SELECT sum(bound_by = 'gpu' AND abs(bound_dur - dur) > dur / 100),
  count(*), max(100.0 * (bound_dur - dur) / max(dur, 1)),
  sum(source = 'gap') FROM step WHERE run_id = ?1
