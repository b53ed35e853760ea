-- cmd-history-create-check-result.sql — The table of the checks, through a
-- temporary table (every --format). Used by src/cli/cmd_history.c,
-- check_print_table().
CREATE TEMP TABLE check_result(metric TEXT, baseline_value REAL,
  value REAL, change_pct REAL, shift_pct REAL, shift_lo_pct REAL,
  shift_hi_pct REAL, threshold_pct REAL, direction INT,
  p_value REAL, n_baseline INT, n_run INT, paired INT,
  work_pct REAL, work_lo_pct REAL, work_hi_pct REAL, work_pairs INT,
  history_runs INT, robust_z REAL, verdict TEXT, reason TEXT)
