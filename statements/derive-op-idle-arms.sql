-- derive-op-idle-arms.sql — select. Used by src/analysis/derive_op.c,
-- model_select(): the arms of op_sig_model_calc that cannot give a row
-- for the signatures not modeled yet, because none of those has a name
-- the arm's view joins its name table on (op_sdpa: op_attention,
-- op_sdpa_bwd: op_attention_bwd, op_conv_model: op_conv, each
-- "JOIN ... ON x.name = s.text" in schema/current.sql). Their SELECTs are
-- left out of the statement: compiling them cost a third of its 15 M
-- instructions on a run without attention or convolutions.
-- From each name table's few names to the string and op_sig indexes
-- (CROSS JOIN: in this order), not from every signature.
SELECT 'op_sdpa' WHERE NOT EXISTS (SELECT 1 FROM op_attention a
  CROSS JOIN string s ON s.text = a.name
  CROSS JOIN op_sig o ON o.name_id = s.id WHERE o.modeled = 0)
UNION ALL
SELECT 'op_sdpa_bwd' WHERE NOT EXISTS (SELECT 1 FROM op_attention_bwd a
  CROSS JOIN string s ON s.text = a.name
  CROSS JOIN op_sig o ON o.name_id = s.id WHERE o.modeled = 0)
UNION ALL
SELECT 'op_conv_model' WHERE NOT EXISTS (SELECT 1 FROM op_conv v
  CROSS JOIN string s ON s.text = v.name
  CROSS JOIN op_sig o ON o.name_id = s.id WHERE o.modeled = 0)
