-- report-html-cat.sql — GPU time per category of scheme ?2 in run ?1.  The
-- run's names are totalled first and categorised once each (kc): joining
-- every summary row to the kernel_category view took 4.5 s at 256 ranks,
-- this 0.1 s. Used by src/report/report_html.c.
WITH g AS (SELECT name_id, sum(n) AS n, sum(total_ns) AS ns
    FROM gpu_op_summary WHERE run_id = ?1 GROUP BY name_id),
  kc AS MATERIALIZED (SELECT name_id, category FROM kernel_category
    WHERE scheme = ?2 AND name_id IN (SELECT name_id FROM g))
  SELECT kc.category, sum(g.n), sum(g.ns),
  100.0 * sum(g.ns) / (SELECT sum(ns) FROM g)
  FROM g JOIN kc ON kc.name_id = g.name_id
  GROUP BY kc.category ORDER BY 3 DESC, 1
