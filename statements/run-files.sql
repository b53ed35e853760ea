-- run-files.sql — the files of run ?1: how many traces, how many of the
-- other kinds, and the records read from all of them.
SELECT coalesce(sum(kind = 'trace'), 0), coalesce(sum(kind <> 'trace'), 0),
  coalesce(sum(n_records), 0)
FROM run_file WHERE run_id = ?1;
