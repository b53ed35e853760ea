-- report-html-hta-queue.sql — The busiest streams of one rank (?4: the
-- rank shown) for the queue chart: the ?2 streams with the most
-- launch-queue changes (hta_stream.queue_n; ties: the lower stream), in
-- device and stream order, each with its first change's time, and the
-- rank's first change and span over all its streams (the chart's time
-- axis).  Used by src/report/report_html_hta.c, queue_chart(), which
-- reads each stream's changes with report-html-hta-queue-points.sql.
WITH b AS (SELECT min(queue_t0) AS t0,
     max(max(queue_t0 + queue_span) - min(queue_t0), 1) AS w
   FROM hta_stream WHERE run_id = ?1 AND rank = ?4 AND queue_n > 0),
  top AS (SELECT device, stream, queue_t0 FROM hta_stream
   WHERE run_id = ?1 AND rank = ?4 AND queue_n > 0
   ORDER BY queue_n DESC, stream LIMIT ?2)
SELECT top.device, top.stream, top.queue_t0, b.t0, b.w
  FROM top CROSS JOIN b ORDER BY top.device, top.stream
