-- derive-hta-metric-store.sql — Deletes from hta_run_metric. Used by
-- src/analysis/derive_hta_metric.c, hta_metric_store().
DELETE FROM hta_run_metric WHERE run_id=?1;
INSERT INTO hta_run_metric SELECT ?1, 'hta_copy_gbps',
  sum(bytes)*1.0/sum(dur) FROM gpu_mem_op WHERE run_id=?1
  AND kind='memcpy' AND bytes IS NOT NULL
  HAVING sum(dur)>0
