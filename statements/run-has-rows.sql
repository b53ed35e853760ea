-- run-has-rows.sql — whether run ?1 has a row in one table.  A template:
-- src/core/table_role.c puts the table's name in with sqlite3_mprintf()
-- (its one format directive; none may stand in these comments).
SELECT 1 FROM "%w" WHERE run_id = ?1 LIMIT 1;
