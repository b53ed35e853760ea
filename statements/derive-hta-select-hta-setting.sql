-- derive-hta-select-hta-setting.sql — Reads hta_setting. Used by
-- src/analysis/derive_hta.c, derive_hta_run().
SELECT CAST(value AS INTEGER) FROM hta_setting
  WHERE name='kernel_wait_ns'
