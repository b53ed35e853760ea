-- cmd-runs-files.sql — `profan runs show`, section files: run ?1's input
-- files. Used by src/cli/cmd_runs.c, show_cmd().
SELECT id AS file_id, path, kind, rank, rank_source, bytes, n_records,
  warnings, round(parse_ms, 1) AS parse_ms, time_regime
  FROM run_file WHERE run_id=?1 ORDER BY id
