-- derive-comm-host-collectives.sql — One collective row per host collective
-- range of the run (cpu_op or user annotation named in temp.cm_cpu_name): no
-- kernel, the range's start and duration, the op from the name (or its
-- pattern), sizes from the range's coll_args (input shapes of a Kineto
-- annotation), the group size from the file's ... Used by
-- src/comm/derive_comm.c, host_collectives() (only when temp.cm_cpu_name
-- has a name). The run's operators are read once, in its rowid range, each
-- name looked up by key: with the names outside, SQLite built an automatic
-- index over the run's cpu_op for the join (mtia 1x: 0.17 s of 0.18).
SELECT x.src, x.id, x.rank, x.file_id, x.ts, x.dur, x.text, x.op,
  f.world_size FROM (SELECT 'cpu_op' AS src, o.id, o.rank, o.file_id,
  o.ts, o.dur, n.text, n.op FROM cpu_op o CROSS JOIN temp.cm_cpu_name n
  ON n.id=o.name_id WHERE o.id BETWEEN (SELECT lo FROM run_rowid_range
    WHERE run_id=?1 AND tbl='cpu_op') AND (SELECT hi FROM run_rowid_range
    WHERE run_id=?1 AND tbl='cpu_op') AND o.run_id=?1
  UNION ALL SELECT 'annotation', a.id, a.rank, a.file_id, a.ts, a.dur,
  n.text, n.op FROM temp.cm_cpu_name n CROSS JOIN annotation a
  ON a.name_id=n.id WHERE a.run_id=?1 AND a.kind='user') x
  LEFT JOIN run_file f ON f.id=x.file_id ORDER BY x.rank, x.ts, x.id
