-- export-derived-critical-path.sql — Reads hta_critical_path. Used by
-- src/report/export_derived.c (its table of statements by name).
SELECT 2, 'critical path', c.ts, c.dur,
  c.class || coalesce(': ' || n.text, ''),
  json_object('step', c.step, 'seq', c.seq, 'side', c.side,
    'class', c.class, 'segments', c.segments,
    'ms', round(c.dur / 1e6, 3))
  FROM hta_critical_path c LEFT JOIN string n ON n.id = c.name_id
  WHERE c.run_id = ?1 AND c.rank = ?2 AND c.ts < ?4
  AND c.ts + max(c.dur, 1) > ?3 ORDER BY c.ts, c.seq
