-- pg-rows-insert.sql — one row the history server sent into the local
-- table (src/server/pg_rows.c, pg_rows_insert()); a row already here
-- stays.  A template: the caller fills its format directives with
-- sqlite3_mprintf(): the table, the column list and as many parameters
-- (table-columns.sql).
-- template arguments (for tests/check_db.c): kernel | "id", "run_id" | ?, ?
INSERT OR IGNORE INTO "%w"(%s) VALUES(%s)
