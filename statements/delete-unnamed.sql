-- delete-unnamed.sql — after `profan rm`: the interned strings no row of
-- any run names any more, then the operator signatures that named one of
-- them (a new string may take its id) and their model rows.
-- A template: src/core/runref.c puts in the union of every string column
-- of table_string_column ("SELECT col FROM tbl UNION ...") with
-- sqlite3_mprintf() (its one format directive; none may stand in these
-- comments).
DELETE FROM string WHERE id NOT IN (%s);
DELETE FROM op_sig WHERE name_id NOT IN (SELECT id FROM string)
  OR dims_id NOT IN (SELECT id FROM string UNION SELECT 0)
  OR types_id NOT IN (SELECT id FROM string UNION SELECT 0)
  OR conc_id NOT IN (SELECT id FROM string UNION SELECT 0);
DELETE FROM op_sig_model WHERE sig_id NOT IN (SELECT id FROM op_sig);
