-- pg-schema-version.sql — The server's version into *pv (0: no schema
-- profan).  0 or -1 (pErr): a schema profan the role may not use is said so.
-- Used by src/server/pg_schema.c, read_version().
-- PostgreSQL: runs on the history server (src/server/pg_conn.c).
SELECT coalesce(max(version), 0)
  FROM profan.schema_version
