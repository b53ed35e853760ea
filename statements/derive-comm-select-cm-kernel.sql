-- derive-comm-select-cm-kernel.sql — Prepare the statements of
-- build_collectives into s (the collective kernels' ids are in
-- temp.cm_kernel).  Returns 0, or -1 with pErr set (the caller finalizes
-- whatever was prepared). Used by src/comm/derive_comm.c, coll_prepare().
SELECT k.id, k.rank, k.file_id, k.device, k.stream, k.ts, k.dur,
  s.text, k.external_id, r.tid, r.ts, f.world_size, n.op
  FROM temp.cm_kernel x CROSS JOIN kernel k ON k.id=x.id
  JOIN temp.cm_name n ON n.id=k.name_id
  JOIN string s ON s.id=k.name_id
  LEFT JOIN runtime_call r ON r.id=k.runtime_id
  LEFT JOIN run_file f ON f.id=k.file_id
  WHERE k.run_id=?1
  ORDER BY k.rank, k.ts, k.id
