-- cmd-export-step-window.sql — --step N: each rank's step N; ranks without
-- it are dropped (an explicit rank without it is an error). Used by
-- src/cli/cmd_export.c, window_step().
SELECT ts, ts+dur FROM step WHERE run_id=?1 AND
  rank=?2 AND step=?3
