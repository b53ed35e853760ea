-- report-html-timeline-draw.sql — Draw window w: the chart, its note and the
-- per-lane table. Used by src/report/report_html.c, timeline_draw().
WITH cat AS (SELECT name_id, category FROM
    kernel_category WHERE scheme = 'detailed' AND name_id IN (SELECT
    name_id FROM gpu_op_summary WHERE run_id = ?1 AND rank = ?2)),
  x AS (SELECT device, stream, ts, dur, name_id FROM kernel
    WHERE run_id = ?1 AND rank = ?2 AND ts < ?4 AND ts + dur > ?3
    UNION ALL SELECT device, stream, ts, dur, name_id FROM gpu_mem_op
    WHERE run_id = ?1 AND rank = ?2 AND ts < ?4 AND ts + dur > ?3)
  SELECT x.device, x.stream, x.ts, x.dur, cat.category FROM x
  LEFT JOIN cat ON cat.name_id = x.name_id
  ORDER BY x.device, x.stream, x.ts
