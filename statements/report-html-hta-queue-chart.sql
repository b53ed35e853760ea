-- report-html-hta-queue-chart.sql — Reads kernel. Used by
-- src/report/report_html_hta.c, queue_chart().
-- A template: the caller fills its format directives with db_int() (none may
-- stand in these comments).
SELECT min(rank) FROM kernel
  WHERE run_id = %lld
