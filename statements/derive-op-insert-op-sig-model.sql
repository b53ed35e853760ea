-- derive-op-insert-op-sig-model.sql — the model of the signatures not
-- modeled yet, from the view op_sig_model_calc (its SELECT put in for the
-- directive: db_exec_run_view), then marked modeled. A run whose
-- signatures are all modeled already (the same model traced again) skips
-- it. Used by src/analysis/derive_op.c, derive_op_store().
-- A template: the caller fills its format directives with sqlite3_mprintf()
-- (none may stand in these comments).
-- template arguments (for tests/check_db.c): SELECT * FROM op_sig_model_calc
INSERT INTO op_sig_model %s
;
UPDATE op_sig SET modeled=1 WHERE modeled=0
