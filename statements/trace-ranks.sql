-- trace-ranks.sql — the ranks of run ?1 that have a trace file, in order.
-- Used by src/cli/cmd_export.c, resolve_ranks() and by
-- src/trace/derive_trace.c, derive_wall() (the wall-time sweep per rank).
SELECT DISTINCT rank FROM run_file WHERE run_id=?1 AND kind='trace'
  AND rank IS NOT NULL ORDER BY rank
