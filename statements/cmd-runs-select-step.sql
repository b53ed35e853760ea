-- cmd-runs-select-step.sql — `profan runs show`, section steps: per rank and
-- step source, the steps' count, range, mean time and what bounds them. Used
-- by src/cli/cmd_runs.c, show_cmd().
SELECT rank, count(*) AS steps, min(step) AS first_step,
  max(step) AS last_step, source,
  round(avg(coalesce(bound_dur, dur))/1e6, 3) AS avg_ms,
  CASE WHEN sum(bound_by = 'gpu') > 0 THEN printf('GPU side in %d (the CPU runs ahead)', sum(bound_by = 'gpu')) ELSE 'CPU' END
  AS step_time
  FROM step WHERE run_id=?1 GROUP BY rank, source ORDER BY rank
