-- derive-op-delete-op-run-metric.sql — the roofline metrics of run ?1
-- (op_target) from the view op_metric_roof_calc (its SELECT put in for the
-- directive: db_exec_run_view). Used by src/analysis/derive_op.c,
-- derive_op_store().
-- A template: the caller fills its format directives with sqlite3_mprintf()
-- (none may stand in these comments).
-- template arguments (for tests/check_db.c): SELECT * FROM op_metric_roof_calc
DELETE FROM op_run_metric WHERE run_id=?1;
INSERT INTO op_run_metric %s
