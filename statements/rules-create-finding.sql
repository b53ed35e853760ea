-- rules-create-finding.sql — Creates finding. Used by src/report/rules.c,
-- rules_run().
CREATE TEMP TABLE IF NOT EXISTS finding(seq INTEGER,
  severity TEXT, rule TEXT, message TEXT, value, threshold,
  hint TEXT)
