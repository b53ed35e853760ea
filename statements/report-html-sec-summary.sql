-- report-html-sec-summary.sql — Header: run facts (tags, GPUs) and the
-- report-summary query. Used by src/report/report_html.c, sec_summary().
SELECT r.id, r.name, r.created_at,
  (SELECT group_concat(key || '=' || value, ', ') FROM
    (SELECT key, value FROM run_tag WHERE run_id = r.id ORDER BY key)),
-- every rank's trace lists all the GPUs its host sees: count ranks
  (SELECT group_concat(name || ' (' || nr || CASE nr WHEN 1 THEN ' rank'
    ELSE ' ranks' END || ', ' || nd || ' visible per rank)', ', ') FROM
    (SELECT name, count(DISTINCT rank) AS nr, max(c) AS nd FROM
      (SELECT coalesce(name, 'unknown GPU') AS name, rank, count(*) AS c
       FROM device WHERE run_id = r.id GROUP BY 1, 2)
     GROUP BY 1 ORDER BY 1))
  FROM run r WHERE r.id = ?1
