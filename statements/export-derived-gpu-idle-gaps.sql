-- export-derived-gpu-idle-gaps.sql — Reads gpu_gap. Used by
-- src/report/export_derived.c (its table of statements by name).
SELECT 100 + coalesce(g.device, 0),
  printf('GPU %d idle gaps (largest)', coalesce(g.device, 0)),
  g.ts, g.dur, printf('idle %.3f ms', g.dur / 1e6),
  json_object('ms', round(g.dur / 1e6, 3), 'before', b.text,
    'after', a.text, 'step', g.step)
  FROM gpu_gap g LEFT JOIN string b ON b.id = g.before_name_id
  LEFT JOIN string a ON a.id = g.after_name_id
  WHERE g.run_id = ?1 AND g.rank = ?2 AND g.ts < ?4
  AND g.ts + max(g.dur, 1) > ?3 ORDER BY g.ts
