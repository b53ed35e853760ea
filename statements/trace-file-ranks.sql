-- trace-file-ranks.sql — the trace files of run ?1 and their ranks.
SELECT id, rank FROM run_file WHERE run_id = ?1 AND kind = 'trace';
