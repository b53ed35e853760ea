-- 020-run-metric.sql — run_metric: every per-run metric in one view, for
-- `profan check`, `trend`, `diff-metrics` and the report summary.
--
-- Each analysis defines its headline numbers in a view of its own with
-- the columns (run_id, metric, value); this file is the one place that
-- unions them.  An analysis that adds metrics adds its view here (and
-- its rows to metric_direction when higher is not worse):
--   run_metric_core   steps, step times, GPU use, categories, comm,
--                     memory (011-steady-steps.sql)
--   op_metric         operator model: GEMM efficiency, kernels without
--                     a launch, exposed memcpy (016-op-model.sql)
-- A filter on run_id reaches into every arm (each groups by run_id).
DROP VIEW IF EXISTS run_metric;
CREATE VIEW run_metric AS
SELECT run_id, metric, value FROM run_metric_core
UNION ALL
SELECT run_id, metric, value FROM op_metric;
