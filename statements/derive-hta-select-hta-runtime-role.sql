-- derive-hta-select-hta-runtime-role.sql — Reads hta_runtime_role. Used by
-- src/analysis/derive_hta.c, roles_load().
SELECT pattern, role FROM
  hta_runtime_role ORDER BY priority
