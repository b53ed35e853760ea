-- cmd-history-select-run-tag.sql — profan baseline set NAME RUN | list | rm
-- NAME. Used by src/cli/cmd_history.c, baseline_cmd().
SELECT b.name, b.run_id, r.name AS run_name, r.created_at, b.set_at,
  (SELECT group_concat(key||'='||value, ' ') FROM run_tag t
   WHERE t.run_id=b.run_id) AS tags
  FROM baseline b LEFT JOIN run r ON r.id=b.run_id ORDER BY b.name
