-- merge-copy-select.sql — the rows of run ?1 of one table of a shard, for
-- `profan merge` (src/ingest/merge.c, copy_table()).  A template: the
-- caller fills its format directives with sqlite3_mprintf(): the column
-- list (table-columns.sql) and the table.
-- template arguments (for tests/check_db.c): "id", "run_id" | kernel
SELECT %s FROM "%w" WHERE run_id=?1
