-- pg-archive-local-strings.sql — the texts of the strings the history
-- rows of a run name (src/server/pg_archive.c, local_read()).
-- A template: the caller fills its format directive with sqlite3_mprintf():
-- the union of pg-archive-string-column over the plan's string columns.
-- template arguments (for tests/check_db.c): SELECT name_id FROM kernel WHERE run_id=?1
SELECT text FROM string WHERE id IN (%s) ORDER BY id
