-- cmd-history-select-check-result.sql — The table of the checks, through a
-- temporary table (every --format). Used by src/cli/cmd_history.c,
-- check_print_table().
SELECT metric, round(baseline_value, 4) AS
  baseline_value, round(value, 4) AS value, round(change_pct, 2) AS
  change_pct, round(shift_pct, 2) AS shift_pct, round(shift_lo_pct, 2)
  AS shift_lo_pct, round(shift_hi_pct, 2) AS shift_hi_pct,
  threshold_pct, direction, p_value, n_baseline, n_run, paired,
  round(work_pct, 2) AS work_pct, round(work_lo_pct, 2) AS work_lo_pct,
  round(work_hi_pct, 2) AS work_hi_pct, work_pairs, history_runs,
  round(robust_z, 2) AS robust_z, verdict, reason FROM check_result
