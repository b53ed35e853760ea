-- derive-straggler-load-windows.sql — The collectives of the run, by rank
-- and start, with their group and launch; *pn of them in a new array (caller
-- frees), NULL when none or on error (pErr set, *pn -1). Used by
-- src/comm/derive_straggler.c, load_windows().  Columns: id, rank, start,
-- end, the rank's first GPU activity, the end of the launch call, the
-- group (process group and sequence number), whether its ends agree
-- across ranks, whether it is a host collective (no kernel).
SELECT x.id, x.rank, x.ts, x.ts+x.dur,
  (SELECT min(b.first_ts) FROM gpu_busy b WHERE b.run_id=x.run_id
   AND b.rank=x.rank),
  (SELECT r.ts+r.dur FROM kernel k JOIN runtime_call r
   ON r.id=k.runtime_id WHERE k.id=x.kernel_id),
  dense_rank() OVER (ORDER BY coalesce(x.pg_name, ''), x.seq),
  x.op IN ('all_reduce', 'all_gather', 'reduce_scatter', 'all_to_all'),
  x.kernel_id IS NULL
  FROM collective x WHERE x.run_id=?1 ORDER BY x.rank, x.ts, x.id
