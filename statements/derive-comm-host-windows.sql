-- derive-comm-host-windows.sql — The windows of the host collectives
-- (collective_window; the kernels' are derive_straggler.c's): from the end
-- of the rank's previous host collective (the first: the rank's first CPU
-- op) to this one's start; compute is the time in it covered by the rank's
-- CPU ops on any thread (the union of their ... Used by
-- src/comm/derive_comm.c, host_windows().
SELECT x.id, x.rank, x.ts, x.ts+x.dur, NULL
  FROM collective x WHERE x.run_id=?1 AND x.kernel_id IS NULL
  ORDER BY x.rank, x.ts, x.id
