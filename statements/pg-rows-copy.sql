-- pg-rows-copy.sql — the COPY that takes a table's rows of a push on the
-- history server (src/server/pg_rows.c, push_table()).  A template: the
-- caller fills its format directives with sqlite3_mprintf(): the table,
-- the column list (table-columns.sql) and ", ord" for a table without an
-- id (its rows' place) or nothing.
-- PostgreSQL: runs on the history server (src/server/pg_conn.c).
COPY profan."%w"(%s%s) FROM STDIN
