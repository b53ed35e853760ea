-- name: fragmentation
-- description: Allocator fragmentation in the memory snapshots: the
-- description: expandable_segments advice of the fragmentation query, per
-- description: snapshot device, by the same test (inactive bytes over
-- description: reserved above inactive_pct and more than min_segments
-- description: segments, expandable_segments not already on).  Both read
-- description: advice_threshold (fragmentation, ...): one threshold.
-- param: inactive_pct:number>=0 =  inactive / reserved, % (empty: advice_threshold fragmentation.inactive_pct)
-- param: min_segments:int>=0 =     more segments than this (empty: advice_threshold fragmentation.min_segments)
WITH th AS (
  SELECT coalesce(:inactive_pct, (SELECT value FROM advice_threshold
           WHERE advice = 'fragmentation' AND name = 'inactive_pct'))
      AS inactive_pct,
    coalesce(:min_segments, (SELECT value FROM advice_threshold
           WHERE advice = 'fragmentation' AND name = 'min_segments'))
      AS min_segments
),
s AS (
  SELECT device, n_segments,
    100.0 * inactive_bytes / max(reserved_bytes, 1) AS pct
  FROM snapshot
  WHERE run_id = :run AND coalesce(expandable_segments, 0) = 0
)
SELECT 'medium' AS severity, 'fragmentation' AS rule,
  printf('device %d: %.1f %% of reserved GPU memory is inactive'
         || ' (fragmentation) across %d segments', s.device, s.pct,
         s.n_segments) AS message,
  round(s.pct, 2) AS value, th.inactive_pct AS threshold,
  'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (or max_split_size_mb)'
    AS hint
FROM s CROSS JOIN th
WHERE s.pct > th.inactive_pct AND s.n_segments > th.min_segments
ORDER BY s.device;
