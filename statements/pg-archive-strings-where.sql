-- pg-archive-strings-where.sql — the condition on the server's string
-- table that finds the texts of $1 (a text array): the md5 index first,
-- then the text itself (src/server/pg_archive.c, pg_archive_run(), for
-- pg-rows-select.sql).
-- PostgreSQL: runs on the history server (src/server/pg_conn.c).
md5(text) IN (SELECT md5(u.t) FROM unnest($1::text[]) AS u(t))
  AND text = ANY($1::text[])
