-- report-html-roofline-load-roofs.sql — The rooflines of run runId into a
-- (at most MAX_ROOFS); returns how many, or -1 with pErr set. Used by
-- src/report/report_html_roofline.c, load_roofs().
SELECT DISTINCT gpu, peak,
  peak_tflops, mem_tbps, coalesce(l2_tbps, 0) FROM op_roofline_call
  WHERE run_id = ?1 AND peak_tflops > 0 AND mem_tbps > 0
  ORDER BY 3 DESC, 1, 2
