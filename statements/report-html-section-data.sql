-- report-html-section-data.sql — whether run ?1 has the inputs that the
-- section ?2 of the HTML run page needs: 1 or 0 (a section not named here
-- needs nothing: summary, findings).  Used by src/report/report_html.c,
-- section_has_data().  memory_event has no run_id index (schema 110): a
-- run's [memory] events are known by their rowid range.
SELECT CASE ?2
  WHEN 'categories' THEN EXISTS (SELECT 1 FROM gpu_op_summary WHERE run_id = ?1)
  WHEN 'top-kernels' THEN EXISTS (SELECT 1 FROM gpu_op_summary WHERE run_id = ?1)
  WHEN 'steps' THEN EXISTS (SELECT 1 FROM step WHERE run_id = ?1)
  WHEN 'timeline' THEN EXISTS (SELECT 1 FROM gpu_busy WHERE run_id = ?1)
  WHEN 'step-breakdown' THEN EXISTS (SELECT 1 FROM step_time WHERE run_id = ?1)
  WHEN 'memory' THEN EXISTS (SELECT 1 FROM snapshot WHERE run_id = ?1)
    OR EXISTS (SELECT 1 FROM run_rowid_range
               WHERE run_id = ?1 AND tbl = 'memory_event')
  WHEN 'segments' THEN EXISTS (SELECT 1 FROM segment WHERE run_id = ?1)
  WHEN 'churn' THEN EXISTS (SELECT 1 FROM alloc_event WHERE run_id = ?1)
  WHEN 'comm' THEN EXISTS (SELECT 1 FROM collective WHERE run_id = ?1)
    OR EXISTS (SELECT 1 FROM comm_overlap WHERE run_id = ?1)
  ELSE 1 END
