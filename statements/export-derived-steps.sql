-- export-derived-steps.sql — Reads step_steady. Used by
-- src/report/export_derived.c (its table of statements by name).
SELECT 1, 'steps', s.ts, s.dur,
  printf('step %d%s', s.step, CASE s.reason WHEN '' THEN ''
    ELSE ' (' || s.reason || ')' END),
  json_object('step', s.step, 'source', s.source, 'phase',
    CASE s.reason WHEN '' THEN 'steady' ELSE s.reason END,
    'ms', round(s.dur / 1e6, 3))
  FROM step_steady s
  WHERE s.run_id = ?1 AND s.rank = ?2 AND s.ts < ?4
  AND s.ts + max(s.dur, 1) > ?3 ORDER BY s.ts
