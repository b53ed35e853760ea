-- history-window-runs-before.sql — The runs of a history window: ids from ?5
-- up to ?1 but ?2, newest first, with whether each carries tag ?3 = ?4
-- (always when ?3 is NULL). Used by src/history/history_window.c,
-- history_window().
SELECT r.id, r.name, ?3 IS NULL OR EXISTS (SELECT 1
  FROM run_tag t WHERE t.run_id=r.id AND t.key=?3
  AND t.value IS ?4) FROM run r WHERE r.id<=?1 AND r.id>=?5
  AND r.id<>?2 ORDER BY r.id DESC
