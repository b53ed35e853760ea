-- derive-comm-select-collective-build-fit.sql — Reads collective. Used by
-- src/comm/derive_comm.c, build_fit().
SELECT op, group_size, bytes, dur FROM collective
  WHERE run_id=?1 AND bytes>0 AND dur>0
  ORDER BY op, group_size, bytes
