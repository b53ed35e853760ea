-- trace-relink-select-kernel.sql — Reads kernel. Used by
-- src/trace/trace_relink.c (its table of statements by name).
SELECT k.id, NULL, k.ts, k.dur, '', k.correlation, NULL FROM kernel k
  WHERE k.run_id=?1 AND k.file_id=?2
