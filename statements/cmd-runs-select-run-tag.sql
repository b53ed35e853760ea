-- cmd-runs-select-run-tag.sql — `profan runs show`, section run: run ?1's
-- row and tags. Used by src/cli/cmd_runs.c, show_cmd().
SELECT id, name, created_at, source_path, content_hash, tool_version,
  (SELECT group_concat(key||'='||value, ' ') FROM run_tag
   WHERE run_id=run.id) AS tags FROM run WHERE id=?1
