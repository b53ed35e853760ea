-- report-html-sec-steps.sql — Per-rank step time with stragglers (rank-skew)
-- and the step heatmap. Used by src/report/report_html.c, sec_steps().
-- A template: the caller fills its format directives with db_int() (none may
-- stand in these comments).
SELECT count(DISTINCT rank) FROM step
  WHERE run_id=%lld AND source='gap'
