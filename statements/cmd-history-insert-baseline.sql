-- cmd-history-insert-baseline.sql — profan baseline set NAME RUN | list | rm
-- NAME. Used by src/cli/cmd_history.c, baseline_cmd().
INSERT OR REPLACE INTO baseline(name, run_id, set_at)
  VALUES(?2, ?1, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
