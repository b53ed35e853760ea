-- pg-archive-floors.sql — The statement of the server's largest ids: run,
-- string, then each table of the plan with an id (ids below 2^32, as merge
-- reads them). Used by src/server/pg_archive.c, floors_sql().
-- PostgreSQL: runs on the history server (src/server/pg_conn.c).
SELECT (SELECT coalesce(max(id), 0) FROM profan.run),
  (SELECT coalesce(max(id), 0) FROM profan.string)
