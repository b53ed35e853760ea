-- cmd-export-run-steps.sql — --step N: each rank's step N; ranks without it
-- are dropped (an explicit rank without it is an error). Used by
-- src/cli/cmd_export.c, window_step() and by src/cli/cmd_export.c,
-- window_step().
SELECT DISTINCT step FROM step WHERE
  run_id=?1 ORDER BY step
