-- rules-insert-finding.sql — Inserts rows into finding. Used by
-- src/report/rules.c, rules_run().
INSERT INTO temp.finding VALUES(?1, ?2, ?3, ?4,
  ?5, ?6, ?7)
