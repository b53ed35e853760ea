-- report-html-sec-categories.sql — One bar chart and table per category
-- scheme. Used by src/report/report_html.c, sec_categories().
SELECT scheme, description FROM
  category_scheme ORDER BY scheme
