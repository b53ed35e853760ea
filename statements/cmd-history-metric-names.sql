-- cmd-history-metric-names.sql — 1 after saying so when no run has metric
-- zMetric (with the nearest metric), else 0. Used by src/cli/cmd_history.c,
-- no_metric().
SELECT DISTINCT metric FROM
  run_metric
