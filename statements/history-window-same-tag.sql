-- history-window-same-tag.sql — Compare the values of tag zKey of both runs;
-- 1 when equal or absent. Used by src/history/history_window.c, same_tag().
SELECT (SELECT value FROM run_tag WHERE
  run_id=?1 AND key=?3), (SELECT value FROM run_tag WHERE run_id=?2
  AND key=?3)
