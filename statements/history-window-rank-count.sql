-- history-window-rank-count.sql — The rank count of a run. Used by
-- src/history/history_window.c, history_comparable() and by
-- src/history/history_window.c, history_comparable().
-- A template: the caller fills its format directives with db_int() (none may
-- stand in these comments).
SELECT ranks FROM run_rank_count
  WHERE run_id=%lld
