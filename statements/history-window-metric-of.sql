-- history-window-metric-of.sql — A run's metric, or NaN. Used by
-- src/history/history_window.c, metric_of().
SELECT value FROM run_metric WHERE run_id=?1
  AND metric=?2
