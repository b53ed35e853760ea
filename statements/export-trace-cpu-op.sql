-- export-trace-cpu-op.sql — the cpu_op rows of the exported ranks and
-- window, for the Chrome trace, in the order of the columns its row_*()
-- reads. Used by src/report/export_trace.c (aSource, by name).
SELECT x.pid, x.tid, x.ts, x.dur, n.text, x.external_id, x.sequence,
  x.fwd_tid, d.text, t.text, c.text, x.flops, x.flops_source, ca.coll_name,
  ca.dtype, ca.in_nelems, ca.out_nelems, ca.group_size, ca.pg_name,
  ca.pg_desc, ca.pg_ranks, ca.in_split, ca.out_split, ca.src_rank,
  ca.dst_rank, ca.seq, x.rank
  FROM cpu_op x
  JOIN string n ON n.id = x.name_id
  LEFT JOIN string d ON d.id = x.input_dims_id
  LEFT JOIN string t ON t.id = x.input_types_id
  LEFT JOIN string c ON c.id = x.concrete_inputs_id
  LEFT JOIN coll_args ca ON ca.run_id = ?1 AND ca.src = 'cpu_op' AND
    ca.row_id = x.id
  JOIN temp.export_win w ON w.rank = x.rank
  WHERE x.id BETWEEN ?5 AND ?6 AND +x.run_id = ?1 AND x.ts < w.hi AND x.ts +
    max(x.dur, 1) > w.lo
