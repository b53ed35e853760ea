-- history-window-shared-items.sql — Shared and total top kernels / operators
-- / snapshot source files of two runs. Used by src/history/history_window.c,
-- shared_items().
SELECT kind, sum(c = 2), count(*) FROM (
  SELECT kind, coalesce(name_id, name) AS k,
   count(DISTINCT run_id) AS c
  FROM run_fingerprint WHERE run_id IN (?1, ?2)
  GROUP BY kind, k) GROUP BY kind
