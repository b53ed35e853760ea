-- report-html-export-hints.sql — "Open in Perfetto" lines: the export-trace
-- command of every anchor of the run (view export_anchor) that zWhere (SQL
-- on its columns a.*) selects: the slowest steps. Used by
-- src/report/report_html.c, the Step times section.
-- A template: the caller fills its format directives with xasprintf() (none
-- may stand in these comments).
-- template arguments (for tests/check_db.c): 1 | 1 = 1
SELECT a.anchor, a.rank, a.step, a.label
  FROM export_anchor a WHERE a.run_id = %lld AND (%s)
  ORDER BY a.anchor LIKE 'gap-%%', length(a.anchor), a.anchor
