-- name: fragmentation
-- description: Allocator fragmentation in the memory snapshots: inactive
-- description: (cached but unused) bytes over reserved bytes, above
-- description: threshold_pct.
-- param: threshold_pct:number>=0 = 20  inactive / reserved, %
SELECT 'medium' AS severity, 'fragmentation' AS rule,
  printf('%.1f %% of reserved GPU memory is inactive (fragmentation)', value)
    AS message,
  round(value, 2) AS value, :threshold_pct AS threshold,
  'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True or max_split_size_mb'
    AS hint
FROM run_metric
WHERE run_id = :run AND metric = 'fragmentation_pct'
  AND value > :threshold_pct;
