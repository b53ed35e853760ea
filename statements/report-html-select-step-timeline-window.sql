-- report-html-select-step-timeline-window.sql — Step iStep (the median step
-- when < 0) of the lowest rank, else (no steps) the lowest rank's first
-- GPU's active window.  1 when found. Used by src/report/report_html.c,
-- timeline_window().
WITH r AS (SELECT min(rank) AS rank FROM step
  WHERE run_id = ?1),
  c AS (SELECT count(*) AS n FROM step WHERE run_id = ?1
    AND rank = (SELECT rank FROM r))
  SELECT rank, step, ts, dur FROM step WHERE run_id = ?1
    AND rank = (SELECT rank FROM r)
    AND (?2 < 0 OR step = ?2)
  ORDER BY CASE WHEN ?2 < 0 THEN dur END, step
  LIMIT 1 OFFSET (CASE WHEN ?2 < 0 THEN ((SELECT n FROM c) - 1) / 2
    ELSE 0 END)
