-- export-trace-kernel.sql — the kernel rows of the exported ranks and
-- window, for the Chrome trace, in the order of the columns its row_*()
-- reads. Used by src/report/export_trace.c (aSource, by name).
SELECT x.device, x.stream, x.ts, x.dur, n.text, x.correlation,
  x.external_id, x.grid_x, x.grid_y, x.grid_z, x.block_x, x.block_y,
  x.block_z, x.registers, x.shared_mem, x.blocks_per_sm, x.warps_per_sm,
  x.occupancy_pct, r.pid, r.tid, r.ts, r.dur, ca.coll_name, ca.dtype,
  ca.in_nelems, ca.out_nelems, ca.group_size, ca.pg_name, ca.pg_desc,
  ca.pg_ranks, ca.in_split, ca.out_split, ca.src_rank, ca.dst_rank, ca.seq,
  x.rank
  FROM kernel x
  LEFT JOIN runtime_call r ON r.id = x.runtime_id
  JOIN string n ON n.id = x.name_id
  LEFT JOIN coll_args ca ON ca.run_id = ?1 AND ca.src = 'kernel' AND
    ca.row_id = x.id
  JOIN temp.export_win w ON w.rank = x.rank
  WHERE x.id BETWEEN ?5 AND ?6 AND +x.run_id = ?1 AND x.ts < w.hi AND x.ts +
    max(x.dur, 1) > w.lo
