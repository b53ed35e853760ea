-- derive-op-insert-op-sig-model.sql — a run whose signatures are all modeled
-- already (the same model traced again) skips preparing and running the
-- arms. Used by src/analysis/derive_op.c, derive_op_store().
INSERT INTO op_sig_model SELECT * FROM op_sig_model_calc;
UPDATE op_sig SET modeled=1 WHERE modeled=0
