-- pg-rows-select.sql — the rows of one table of a history on the history
-- server that a condition selects, in the order a local history holds
-- them (src/server/pg_rows.c, pg_rows_select()).  A template: the caller
-- fills its format directives with sqlite3_mprintf(): the column list
-- (table-columns.sql), the table, the condition, the order.
-- PostgreSQL: runs on the history server (src/server/pg_conn.c).
SELECT %s FROM profan."%w" WHERE %s ORDER BY %s
