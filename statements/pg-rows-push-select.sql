-- pg-rows-push-select.sql — the local rows of one table that a push
-- sends to the history server: a run's rows (?1 the run), of the
-- strings those above ?1 (src/server/pg_rows.c, push_table()).
-- A template: the caller fills its format directives with
-- sqlite3_mprintf(): the column list (table-columns.sql), the table, the
-- condition and the order ("ORDER BY rowid" or nothing).
-- template arguments (for tests/check_db.c): "id", "run_id" | kernel | run_id=?1 | ORDER BY rowid
SELECT %s FROM "%w" WHERE %s %s
