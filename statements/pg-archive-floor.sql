-- pg-archive-floor.sql — one table's largest id on the history server
-- (ids below 2^32, as merge reads them): a column that
-- src/server/pg_archive.c, floors_sql(), adds to pg-archive-floors.sql
-- per table of the plan with an id.  A template: the caller fills its
-- format directive with sqlite3_mprintf(): the table.
-- PostgreSQL: runs on the history server (src/server/pg_conn.c).
, (SELECT coalesce(max(id), 0) FROM profan."%w" WHERE id < 4294967296)
