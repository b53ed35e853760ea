-- report-html-select-gpu-busy.sql — no steps: the whole active window of the
-- lowest rank's first GPU. Used by src/report/report_html.c,
-- timeline_window().
SELECT rank, first_ts, last_end FROM gpu_busy
  WHERE run_id = ?1 ORDER BY rank, device LIMIT 1
