-- name: memory-ops
-- description: Memory operations (memcpy, memset: the coarse category
-- description: "memory") above threshold_pct of GPU activity time.  The
-- description: memcpy time launched by aten::copy_ / aten::to is here, not
-- description: in copy-ops (one finding per cause); needs the run's
-- description: evidence (run_evidence).
-- param: threshold_pct:number>=0 = 10  share of GPU time, %
SELECT 'medium' AS severity, 'memory-ops' AS rule,
  printf('memory ops (memcpy/memset) take %.1f %% of GPU time', value)
    AS message,
  round(value, 2) AS value, :threshold_pct AS threshold,
  'gradient checkpointing trade-offs, pinned host memory, fewer'
  || ' host<->device copies' AS hint
FROM run_metric
WHERE run_id = :run AND metric = 'cat_coarse:memory_pct'
  AND value > :threshold_pct
  AND (SELECT enough FROM run_evidence WHERE run_id = :run);
