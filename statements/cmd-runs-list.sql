-- cmd-runs-list.sql — `profan runs`: every run with its file and rank counts
-- and tags, optionally only those with tag ?2 = ?3. Used by
-- src/cli/cmd_runs.c, runs_cmd().
SELECT r.id, r.name, r.created_at,
  (SELECT count(*) FROM run_file f WHERE f.run_id=r.id) AS files,
  (SELECT count(DISTINCT rank) FROM run_file f WHERE f.run_id=r.id
   AND f.rank IS NOT NULL) AS ranks,
  (SELECT group_concat(key||'='||value, ' ') FROM run_tag t
   WHERE t.run_id=r.id) AS tags,
  r.source_path
  FROM run r
  WHERE ?2 IS NULL OR EXISTS (SELECT 1 FROM run_tag t WHERE t.run_id=r.id
   AND t.key=?2 AND t.value=?3)
  ORDER BY r.id
