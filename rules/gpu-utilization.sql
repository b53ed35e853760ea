-- name: gpu-utilization
-- description: GPU utilization (busy union over the active window, all
-- description: devices): high below low_pct, medium below target_pct.
-- param: low_pct:number>=0 = 50      below: severity high
-- param: target_pct:number>=0 = 80   below: severity medium
SELECT CASE WHEN value < :low_pct THEN 'high' ELSE 'medium' END AS severity,
  'gpu-utilization' AS rule,
  printf('GPU busy %.1f %% of the active window', value) AS message,
  round(value, 2) AS value,
  CASE WHEN value < :low_pct THEN :low_pct ELSE :target_pct END AS threshold,
  'CPU-side bottleneck: data loading (more workers, prefetch, pin_memory),'
  || ' Python overhead, synchronizations (.item(), .cpu()), CUDA graphs'
    AS hint
FROM run_metric
WHERE run_id = :run AND metric = 'gpu_util_pct' AND value < :target_pct;
