-- history-window-kinds.sql — Reads run_file. Used by
-- src/history/history_window.c.
SELECT group_concat(kind, '+') FROM (SELECT DISTINCT kind FROM run_file
  WHERE run_id=?1 ORDER BY kind)
