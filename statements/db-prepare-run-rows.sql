-- db-prepare-run-rows.sql — select. Used by src/core/db.c,
-- db_prepare_run_rows().
-- A template: the caller fills its format directives with sqlite3_mprintf()
-- (none may stand in these comments).
-- template arguments (for tests/check_db.c): ts, dur | kernel | +0 | +0
SELECT %s FROM %s WHERE id BETWEEN ?2 AND ?3
  AND +run_id=?1%s%s
