-- run-tables.sql — the tables a run's rows are in, by their role in
-- table_role, with a run_id column: what `profan rm` deletes them from
-- (src/core/runref.c).  The run row itself is deleted after them.
SELECT r.name FROM table_role r
WHERE r.role IN ('run', 'history', 'raw', 'derived_rank', 'derived_run',
                 'scratch')
  AND EXISTS (SELECT 1 FROM pragma_table_info(r.name) WHERE name = 'run_id')
ORDER BY r.name;
