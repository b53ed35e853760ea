-- report-html-hta-queue-points.sql — One stream's launch-queue changes
-- for the queue chart (run ?1, rank ?2, device ?3, stream ?4): atoms 0
-- and 1 (held time, length) of each element of hta_stream.queue_points
-- (schema 124), as json_tree walks the array, with the element's node id
-- (parent): increasing in array order, which the reader checks instead
-- of a sort.  The time of each change is summed by the reader
-- (src/report/report_html_hta.c, queue_chart()) as the rows come, not by
-- the view hta_queue_length's window over every change of the rank.
SELECT t.parent, t.key, t.value
  FROM hta_stream s JOIN json_tree(s.queue_points) t
  WHERE s.run_id = ?1 AND s.rank = ?2 AND s.device = ?3 AND s.stream = ?4
  AND t.type = 'integer' AND t.key <= 1
