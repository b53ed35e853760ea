-- derive-comm-host-names.sql — The names of the run's host collective
-- ranges: cpu_op names (from the op summary, not the rows) and user
-- annotation names that a comm_cpu_pattern matches, with the op its first
-- pattern names. Used by src/comm/derive_comm.c.
DROP TABLE IF EXISTS temp.cm_cpu_name;
CREATE TEMP TABLE cm_cpu_name(id INTEGER PRIMARY KEY, text TEXT, op TEXT);
INSERT INTO cm_cpu_name SELECT s.id, s.text,
  (SELECT p.op FROM comm_cpu_pattern p WHERE s.text GLOB p.pattern
   AND p.op IS NOT NULL ORDER BY p.pattern LIMIT 1)
  FROM (SELECT name_id AS id FROM cpu_op_summary WHERE run_id=?1
   UNION SELECT name_id FROM annotation WHERE run_id=?1 AND kind='user') u
  JOIN string s ON s.id=u.id
  WHERE EXISTS (SELECT 1 FROM comm_cpu_pattern p WHERE s.text GLOB
   p.pattern);
