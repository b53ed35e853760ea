-- derive-comm-windows-update.sql — The host windows a[0..n) into their
-- collective_window rows (written by derive_straggler.c for every
-- collective, from GPU work): the window, the host compute in it (at most
-- the window), idle the rest. Returns 0, or -1 with pErr set. Used by
-- src/comm/derive_comm.c, windows_update().
UPDATE collective_window
  SET window_ns=?3, compute_ns=?4, idle_ns=?5
  WHERE collective_id=?1 AND run_id=?2
