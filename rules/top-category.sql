-- name: top-category
-- description: The category with the largest share of GPU activity time
-- description: (kernels, memcpy, memset) in a scheme, when above
-- description: threshold_pct; the scheme's default (uncategorized) bucket
-- description: is not counted, nor are the categories a dedicated rule
-- description: judges (category_owner: communication, memory ops,
-- description: optimizer, dtype conversion), so one piece of GPU time
-- description: gives one finding.  The hint depends on the category.
-- description: Needs the run's evidence (run_evidence).
-- param: threshold_pct:number>=0 = 30  share of GPU time, %
-- param: scheme:scheme = detailed   category scheme
WITH c AS (
  SELECT substr(metric, length('cat_' || :scheme || ':') + 1,
                length(metric) - length('cat_' || :scheme || ':') - 4)
           AS category, value
  FROM run_metric
  WHERE run_id = :run AND metric GLOB 'cat_' || :scheme || ':*_pct'
),
top AS (
  SELECT c.category, c.value, lower(c.category) AS lc FROM c
  WHERE c.category <> (SELECT default_category FROM category_scheme
                       WHERE scheme = :scheme)
    AND c.category NOT IN (SELECT category FROM category_owner
                           WHERE scheme = :scheme)
  ORDER BY c.value DESC, c.category LIMIT 1
)
SELECT
  CASE WHEN lc GLOB '*gemm*' OR lc GLOB '*matmul*' OR lc GLOB '*cutlass*'
       THEN 'info' ELSE 'medium' END AS severity,
  'top-category' AS rule,
  printf('%s takes %.1f %% of GPU time', category, value) AS message,
  round(value, 2) AS value,
  :threshold_pct AS threshold,
  CASE
    WHEN lc GLOB '*gemm*' OR lc GLOB '*matmul*' OR lc GLOB '*cutlass*' THEN
      'GEMM/matmul dominates: lower precision (bf16/FP8), fewer trainable'
      || ' params (LoRA), smaller batch if memory-bound elsewhere; check'
      || ' tensor-core kernels are used'
    WHEN lc GLOB '*attention*' OR lc GLOB '*fmha*' THEN
      'attention dominates: make sure a flash-attention kernel is active;'
      || ' shorter sequences or sliding-window attention'
    WHEN lc GLOB '*elementwise*' OR lc GLOB '*fill*'
      OR lc GLOB '*activation*' OR lc GLOB '*conversion*' THEN
      'elementwise/fill dominate: kernel fusion (torch.compile, fused'
      || ' kernel libraries); fewer materialized temporaries'
    WHEN lc GLOB '*moe*' OR lc GLOB '*scatter*' OR lc GLOB '*topk*' THEN
      'MoE scatter/routing dominates: expert count and capacity factor;'
      || ' kernel block sizes'
    ELSE 'look at its largest kernels: profan query top-kernels'
  END AS hint
FROM top
WHERE value > :threshold_pct
  AND (SELECT enough FROM run_evidence WHERE run_id = :run);
