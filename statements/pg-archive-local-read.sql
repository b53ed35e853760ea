-- pg-archive-local-read.sql — Reads baseline. Used by
-- src/server/pg_archive.c, local_read().
SELECT name FROM baseline WHERE run_id=?1
  ORDER BY name
