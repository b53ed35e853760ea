-- derive-trace-insert-step-time.sql — The wall-time sweep of every rank of
-- the run, over the spans kept of the rows. Used by
-- src/trace/derive_trace.c, derive_wall().
INSERT INTO step_time(run_id, rank, step, class, ns)
  VALUES(?1,?2,?3,?4,?5)
