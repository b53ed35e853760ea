-- report-html-cat-style.sql — names totalled and categorised once each, as
-- in zCatSql. Used by src/report/report_html.c, cat_style().
WITH g AS (SELECT name_id, sum(total_ns) AS ns FROM gpu_op_summary
    WHERE run_id = ?1 GROUP BY name_id),
  kc AS MATERIALIZED (SELECT name_id, scheme, category
    FROM kernel_category WHERE scheme IN (?2, 'detailed')
    AND name_id IN (SELECT name_id FROM g))
  SELECT d.category FROM g
  JOIN kc c ON c.name_id = g.name_id AND c.scheme = ?2
  JOIN kc d ON d.name_id = g.name_id AND d.scheme = 'detailed'
  WHERE c.category = ?3
  GROUP BY d.category ORDER BY sum(g.ns) DESC, 1 LIMIT 1
