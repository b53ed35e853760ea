-- history-window-shares-tag.sql — 1 when run idB shares a tag (key and
-- value) with run idA. Used by src/history/history_window.c, shares_tag().
-- A template: the caller fills its format directives with db_int() (none may
-- stand in these comments).
SELECT EXISTS (SELECT 1 FROM run_tag a JOIN run_tag
  b ON b.key = a.key AND b.value IS a.value WHERE a.run_id =
  %lld AND b.run_id = %lld)
