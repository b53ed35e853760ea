-- report-html-kernel-style.sql — The style of a GPU activity name: that of
-- its detailed category. Used by src/report/report_html.c, kernel_style().
SELECT category FROM kernel_category
  WHERE scheme = 'detailed' AND name = ?1 LIMIT 1
