-- report-html-hta-queue.sql — Queue length over time of one rank's busiest
-- streams (?4: the lowest rank shown; bound, since a subquery there would
-- not reach the view's per-rank scans): the largest value in each of
-- HTA_QUEUE_POINTS time buckets. Used by src/report/report_html_hta.c.
WITH q AS (SELECT rank, device, stream, ts, queue_length
   FROM hta_queue_length WHERE run_id = ?1
   AND rank = ?4),
  top AS (SELECT device, stream FROM q GROUP BY device, stream
   ORDER BY count(*) DESC, stream LIMIT ?2),
  b AS (SELECT min(ts) AS t0, max(max(ts) - min(ts), 1) AS w FROM q)
  SELECT q.rank, q.stream, CAST((q.ts - b.t0) * ?3 / b.w AS INTEGER) AS k,
   (min(q.ts) - b.t0) / 1e6, max(q.queue_length)
  FROM q JOIN top ON top.device IS q.device AND top.stream IS q.stream
  CROSS JOIN b GROUP BY q.device, q.stream, k ORDER BY q.device, q.stream, k
