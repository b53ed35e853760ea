-- export-derived-write-exposed.sql — The window's kernels of every rank by
-- rank, device and start, in one pass over the run's kernels (joined with
-- temp.export_win); a kernel is communication when it has a collective row
-- (derive_comm.c). Used by src/report/export_derived.c, write_exposed().
SELECT k.rank, coalesce(k.device, 0), k.ts, k.dur, EXISTS(SELECT 1
  FROM collective c WHERE c.run_id = ?1 AND c.rank = k.rank
  AND c.ts = k.ts AND c.kernel_id = k.id)
  FROM kernel k JOIN temp.export_win w ON w.rank = k.rank
  WHERE k.id BETWEEN ?2 AND ?3 AND +k.run_id = ?1
  AND k.ts < w.hi AND k.ts + max(k.dur, 1) > w.lo
  ORDER BY 1, 2, 3
