-- derive-comm-parent-by-ext.sql — Prepare the statements of
-- build_collectives into s (the collective kernels' ids are in
-- temp.cm_kernel).  Returns 0, or -1 with pErr set (the caller finalizes
-- whatever was prepared). Used by src/comm/derive_comm.c, coll_prepare().
SELECT row_id, name FROM temp.cm_parent WHERE kind=?1 AND rank=?2
  AND ext=?3 LIMIT 1
