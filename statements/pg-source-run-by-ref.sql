-- pg-source-run-by-ref.sql — the condition on a history table that keeps
-- the rows of the run a reference names: $1 its name, $2 its id (NULL when
-- the reference is not a number) (src/server/pg_source.c, for
-- pg-rows-select.sql).
-- PostgreSQL: runs on the history server (src/server/pg_conn.c).
run_id IN (SELECT id FROM profan.run WHERE name = $1 OR id = $2::bigint)
