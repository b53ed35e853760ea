-- merge-copy-insert.sql — one row of a shard's table into the target,
-- for `profan merge` (src/ingest/merge.c, copy_table()); OR IGNORE where
-- the target's row stays on a key conflict (a tag, a baseline name).
-- A template: the caller fills its format directives with
-- sqlite3_mprintf(): "OR IGNORE" or nothing, the table, the column list
-- and as many parameters (table-columns.sql).
-- template arguments (for tests/check_db.c): OR IGNORE | kernel | "id", "run_id" | ?, ?
INSERT %s INTO "%w"(%s) VALUES(%s)
