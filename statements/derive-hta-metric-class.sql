-- derive-hta-metric-class.sql — Class of each kernel name of the run: its
-- coarse category in view kernel_category (schema/012-verdicts.sql), the one
-- definition that the HTA views of 013 use too: communication kernels by
-- comm_pattern, the rest by the coarse category_rule substrings.  'comm' is
-- HK_COMM, 'memory' HK_MEMORY, anything else compute.  The filter on the
-- run's names keeps the per-name rule lookups to this run's kernels. Used by
-- src/analysis/derive_hta_metric.c.
SELECT k.name_id, k.category FROM kernel_category k
  WHERE k.scheme='coarse' AND k.name_id IN (SELECT name_id
  FROM gpu_op_summary WHERE run_id=?1 AND kind='kernel')
  ORDER BY k.name_id
