-- report-html-hta-queue-chart.sql — The lowest rank with kernels in run N
-- (the rank the queue chart shows when none is chosen). Used by
-- src/report/report_html_hta.c, queue_chart().
-- A template: the caller fills its format directives with db_int() (none may
-- stand in these comments).
SELECT min(rank) FROM kernel
  WHERE run_id = %lld
