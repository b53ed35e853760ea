-- derive-hta-select-hta-queue-limit.sql — Reads hta_queue_limit. Used by
-- src/analysis/derive_hta.c, roles_load().
SELECT pattern, coalesce(queue_full, 0) FROM
  hta_queue_limit ORDER BY priority
