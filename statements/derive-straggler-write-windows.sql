-- derive-straggler-write-windows.sql — Write the collective_window rows of
-- a.  Returns 0 or -1 (pErr). Used by src/comm/derive_straggler.c,
-- write_windows().
INSERT INTO collective_window(
  collective_id, run_id, window_ns, compute_ns, idle_ns, arrival_ns,
  wait_ns, exposed_wait_ns, queued_ns)
  VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)
