-- report-html-has-segments.sql — Segment map per snapshot device: one cell
-- per segment, filled to its active share; the fragmentation query under it.
-- Used by src/report/report_html.c, sec_segments().
-- A template: the caller fills its format directives with db_int() (none may
-- stand in these comments).
SELECT count(*) FROM snapshot WHERE
  run_id=%lld AND n_segments > 0
