-- derive-comm-select-coll-args.sql — Prepare the statements of
-- build_collectives into s (the collective kernels' ids are in
-- temp.cm_kernel).  Returns 0, or -1 with pErr set (the caller finalizes
-- whatever was prepared). Used by src/comm/derive_comm.c, coll_prepare().
SELECT coll_name, dtype, in_nelems, out_nelems, group_size, pg_name,
  pg_desc, pg_ranks FROM coll_args WHERE run_id=?1 AND src=?2
  AND row_id=?3
