-- findings-by-severity.sql — Findings from temp.finding, most severe first
-- (as `profan report`). Used by src/cli/cmd_report.c and by
-- src/report/report_html.c, sec_findings().
SELECT severity, rule, message, value, threshold, hint FROM temp.finding
  ORDER BY CASE severity WHEN 'high' THEN 0 WHEN 'medium' THEN 1
  WHEN 'low' THEN 2 ELSE 3 END, rule, seq
