-- pg-archive-run.sql — The server run with content hash $1, if any. Used by
-- src/server/pg_archive.c, pg_archive_run().
-- PostgreSQL: runs on the history server (src/server/pg_conn.c).
SELECT id FROM profan.run WHERE content_hash = $1
  AND content_hash <> ''
