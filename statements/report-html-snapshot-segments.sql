-- report-html-snapshot-segments.sql — Segment map per snapshot device: one
-- cell per segment, filled to its active share; the fragmentation query
-- under it. Used by src/report/report_html.c, sec_segments().
SELECT s.id, s.device, s.n_segments, s.reserved_bytes,
  s.inactive_bytes FROM snapshot s WHERE s.run_id = ?1
  AND s.n_segments > 0 ORDER BY s.device, s.id
