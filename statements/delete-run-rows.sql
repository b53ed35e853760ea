-- delete-run-rows.sql — the rows of run ?1 in one table.  A template:
-- src/core/table_role.c puts the table's name in with sqlite3_mprintf()
-- (its one format directive; none may stand in these comments).
DELETE FROM "%w" WHERE run_id = ?1;
