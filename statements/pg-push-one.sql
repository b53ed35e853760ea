-- pg-push-one.sql — One run: archived into db as the server will hold it,
-- then sent (or skipped when the server has its content).  0 or -1. Used by
-- src/server/pg_push.c, push_one().
SELECT name FROM run WHERE
  id=?1
