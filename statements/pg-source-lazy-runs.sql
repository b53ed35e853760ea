-- pg-source-lazy-runs.sql — the condition on a history table that keeps
-- only what a lazy history source needs at start: the rows of the runs
-- that are baselines and of the newest run (src/server/pg_source.c,
-- pg_source_open(), for pg-rows-select.sql).
-- PostgreSQL: runs on the history server (src/server/pg_conn.c).
run_id IN (SELECT run_id FROM profan.baseline
           UNION ALL SELECT max(id) FROM profan.run)
