-- pg-archive-string-column.sql — the string ids one column of a history
-- table names for run ?1: one arm of the union pg-archive-local-strings
-- takes (src/server/pg_archive.c, local_read()).  A template: the caller
-- fills its format directives with sqlite3_mprintf(): the column, the
-- table.
-- template arguments (for tests/check_db.c): name_id | kernel
SELECT "%w" FROM "%w" WHERE run_id=?1
