-- 020-run-metric.sql — run_metric: every per-run metric in one view, for
-- `profan check`, `trend`, `diff-metrics` and the report summary.
--
-- Each analysis defines its headline numbers in a view of its own with
-- the columns (run_id, metric, value); this file is the one place that
-- unions them.  An analysis that adds metrics adds its view here (and
-- its rows to metric_direction when higher is not worse):
--   run_metric_core   steps, step times, GPU use, categories, comm,
--                     memory (011-steady-steps.sql)
--   hta_metric        idle/compute shares, host wait, queue, copy
--                     bandwidth, critical path (013-hta-analyses.sql;
--                     stored per run at ingest in hta_run_metric)
-- A filter on run_id or metric must reach into every arm: trend and
-- check read this view over thousands of runs.  op_metric (016: GEMM
-- efficiency, kernels without a launch, exposed memcpy) is not unioned
-- yet: its views recompute kernel unions over every run (about 45 ms a
-- run, 9 s over 200), so it needs a per-run table filled at ingest
-- first.  Query it directly meanwhile: SELECT * FROM op_metric.
DROP VIEW IF EXISTS run_metric;
CREATE VIEW run_metric AS
SELECT run_id, metric, value FROM run_metric_core
UNION ALL
SELECT run_id, metric, value FROM hta_metric;
