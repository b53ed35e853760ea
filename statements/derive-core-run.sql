-- derive-core-run.sql — The core run metrics of run ?1: core_run_metric rows
-- recomputed from the view run_metric_core_calc (its SELECT put in for the
-- directive), with core_target naming the run. Used by
-- src/analysis/derive_core.c, derive_core_run().
-- A template: the caller fills its format directives with sqlite3_mprintf()
-- (none may stand in these comments).
-- template arguments (for tests/check_db.c): SELECT * FROM run_metric_core_calc
DELETE FROM core_target;
INSERT INTO core_target VALUES(?1);
DELETE FROM core_run_metric WHERE run_id=?1;
INSERT INTO core_run_metric %s
;
DELETE FROM core_target
