-- pg-source-page-ids.sql — history_source over a server, lazily read: the
-- ids of the nWant ($2) newest runs with id <= $1, on the primary key, so
-- that a page reads only its runs. Used by src/server/pg_source.c,
-- page_ids().
-- PostgreSQL: runs on the history server (src/server/pg_conn.c).
SELECT id FROM profan.run WHERE id <= $1
 ORDER BY id DESC LIMIT $2
