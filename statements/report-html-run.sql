-- report-html-run.sql — the HTA analyses and the roofline: runs with GPU
-- activity. Used by src/report/report_html.c, report_html_run().
-- A template: the caller fills its format directives with db_int() (none may
-- stand in these comments).
SELECT EXISTS (SELECT 1 FROM kernel
  WHERE run_id = %lld)
