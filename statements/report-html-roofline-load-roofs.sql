-- report-html-roofline-load-roofs.sql — The rooflines of run runId into a
-- (at most MAX_ROOFS); returns how many, or -1 with pErr set. Used by
-- src/report/report_html_roofline.c, load_roofs().  The run's calls are
-- its cpu_op rowid range (op_gpu_time.op_id is a cpu_op.id, schema 123),
-- from op_roofline_core: op_roofline_call's rows without the names it
-- joins to each of them.
SELECT DISTINCT gpu, peak,
  peak_tflops, mem_tbps, coalesce(l2_tbps, 0) FROM op_roofline_core
  WHERE op_id BETWEEN (SELECT lo FROM run_rowid_range
                       WHERE run_id = ?1 AND tbl = 'cpu_op')
                  AND (SELECT hi FROM run_rowid_range
                       WHERE run_id = ?1 AND tbl = 'cpu_op')
    AND +run_id = ?1 AND peak_tflops > 0 AND mem_tbps > 0
  ORDER BY 3 DESC, 1, 2
