-- named-query-run-ranks.sql — The ranks of run runId as "0-7" or "0, 2, 5"
-- into zBuf; "" if none. Used by src/report/named_query.c, run_ranks().
SELECT DISTINCT rank FROM run_file
  WHERE run_id=?1 AND rank IS NOT NULL ORDER BY rank
