-- derive-trace-nostep.sql — The ranks with no step and the span of their GPU
-- rows (first start, last end; NULL for a CPU-only rank): the caller merges
-- in the span of their CPU ops (spans_cpu_range). Used by
-- src/trace/derive_trace.c.
WITH nostep(rank) AS (
   SELECT rank FROM gpu_busy WHERE run_id=?1
   UNION SELECT rank FROM run_file WHERE run_id=?1 AND kind='trace'
    AND rank IS NOT NULL
   EXCEPT SELECT rank FROM step WHERE run_id=?1)SELECT n.rank, min(b.first_ts), max(b.last_end) FROM nostep n
  LEFT JOIN gpu_busy b ON b.run_id=?1 AND b.rank=n.rank GROUP BY n.rank
