-- 075-drop-runtime-call-run.sql — the index runtime_call_run (run_id on
-- runtime_call, built after the bulk load: 001's bulk_index) is read by no
-- named query, rule or view plan (bench/query_plans.py on the
-- param-linear-2080ti fixture x10 gives the same plans without it): the
-- per-run readers of runtime_call take the run's calls by rowid range
-- (statements/trace-feed-runtime-call.sql, export-trace-runtime-call.sql,
-- trace-relink-select-runtime-call.sql) or reach them from a kernel
-- (kernel.runtime_id).  It cost 5 % of that database (issue 35: database
-- <= 25 % of the JSON).  Deleting a run (`profan rm`, a rebuild) now scans
-- runtime_call once for the run's calls.
DELETE FROM bulk_index WHERE name = 'runtime_call_run';
DROP INDEX IF EXISTS runtime_call_run;
