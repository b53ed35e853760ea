-- pg-schema-access.sql — The server's version into *pv (0: no schema
-- profan).  0 or -1 (pErr): a schema profan the role may not use is said so.
-- Used by src/server/pg_schema.c, read_version().
-- PostgreSQL: runs on the history server (src/server/pg_conn.c).
SELECT n.oid IS NOT NULL, coalesce(has_schema_privilege(n.oid,
  'USAGE'), false), to_regclass('profan.schema_version') IS NOT NULL
  FROM (SELECT 1) AS one
  LEFT JOIN pg_namespace n ON n.nspname = 'profan'
