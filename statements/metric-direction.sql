-- metric-direction.sql — Reads metric_direction. Used by
-- src/report/report_html.c, report_html_trend() and by
-- src/history/history.c, history_check_metric().
-- A template: the caller fills its format directives with db_int() (none may
-- stand in these comments).
SELECT direction FROM metric_direction
  WHERE %Q GLOB pattern ORDER BY priority LIMIT 1
