-- history-window-kinds.sql — The input kinds of run ?1 joined with +, in
-- order (runs compare only with runs of the same kinds). Used by
-- src/history/history_window.c.
SELECT group_concat(kind, '+') FROM (SELECT DISTINCT kind FROM run_file
  WHERE run_id=?1 ORDER BY kind)
