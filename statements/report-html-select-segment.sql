-- report-html-select-segment.sql — Segment map per snapshot device: one cell
-- per segment, filled to its active share; the fragmentation query under it.
-- Used by src/report/report_html.c, sec_segments().
SELECT idx, total_size, inactive_bytes,
  n_blocks, coalesce(segment_type, ''), largest_inactive_bytes
  FROM segment WHERE snapshot_id = ?2 ORDER BY address, idx
  LIMIT ?3
