-- report-html-finding-hints.sql — "Open in Perfetto" lines under Findings:
-- the anchors of the findings that have a time range (a straggler's are
-- shown under Step times instead) and the three largest gaps of
-- gpu-utilization. Used by src/report/report_html.c, the Findings section.
-- A template: the caller fills its format directives with xasprintf() (none
-- may stand in these comments).
SELECT a.anchor, a.rank, a.step, a.label
  FROM export_anchor a
 WHERE a.run_id = %lld
   AND a.rule IN (SELECT rule FROM temp.finding)
   AND a.rule <> 'straggler'
   AND (a.anchor NOT LIKE 'gap-%%' OR CAST(substr(a.anchor, 5) AS INTEGER) <= 3)
 ORDER BY a.anchor LIKE 'gap-%%', length(a.anchor), a.anchor
