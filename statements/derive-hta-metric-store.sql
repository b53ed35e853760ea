-- derive-hta-metric-store.sql — Run ?1's HTA run metrics: hta_copy_gbps, the
-- mean memcpy bandwidth (bytes over busy time). Used by
-- src/analysis/derive_hta_metric.c, hta_metric_store().
DELETE FROM hta_run_metric WHERE run_id=?1;
INSERT INTO hta_run_metric SELECT ?1, 'hta_copy_gbps',
  sum(bytes)*1.0/sum(dur) FROM gpu_mem_op WHERE run_id=?1
  AND kind='memcpy' AND bytes IS NOT NULL
  HAVING sum(dur)>0
