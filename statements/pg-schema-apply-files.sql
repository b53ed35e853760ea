-- pg-schema-apply-files.sql — Apply the files numbered above have, inside
-- the caller's transaction. 0 or -1 (pErr). Used by src/server/pg_schema.c,
-- apply_files().
-- PostgreSQL: runs on the history server (src/server/pg_conn.c).
INSERT INTO profan.schema_version(version, name)
  VALUES($1, $2)
