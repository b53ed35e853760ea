-- report-html-sec-comm.sql — collectives per op over all ranks. Used by
-- src/report/report_html.c, sec_comm().
SELECT op, count(*) AS kernels,
  round(sum(dur) / 1e6, 3) AS total_ms, sum(bytes) AS
  total_bytes FROM collective WHERE run_id = ?1 GROUP BY op
  ORDER BY sum(dur) DESC, op
