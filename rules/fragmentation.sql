-- name: fragmentation
-- description: Allocator fragmentation in the memory snapshots: free
-- description: space inside segments that hold live blocks (fragmented
-- description: bytes: only requests that fit a hole can use it), per
-- description: snapshot device, above inactive_pct of reserved across
-- description: more than min_segments such segments, expandable_segments
-- description: not already on: the test of the fragmentation query's
-- description: expandable_segments recommendation.  Whole free cached
-- description: segments are not fragmentation (rule reserved-unused).
-- description: Both read advice_threshold (fragmentation, ...): one
-- description: threshold.
-- param: inactive_pct:number>=0 =  fragmented / reserved, % (empty: advice_threshold fragmentation.inactive_pct)
-- param: min_segments:int>=0 =     more segments with live blocks than this (empty: advice_threshold fragmentation.min_segments)
WITH th AS (
  SELECT coalesce(:inactive_pct, (SELECT value FROM advice_threshold
           WHERE advice = 'fragmentation' AND name = 'inactive_pct'))
      AS inactive_pct,
    coalesce(:min_segments, (SELECT value FROM advice_threshold
           WHERE advice = 'fragmentation' AND name = 'min_segments'))
      AS min_segments
),
s AS (
  SELECT device, n_segments - unused_segments AS n_used, fragmented_bytes,
    100.0 * fragmented_bytes / max(reserved_bytes, 1) AS pct
  FROM snapshot
  WHERE run_id = :run AND coalesce(expandable_segments, 0) = 0
)
SELECT 'medium' AS severity, 'fragmentation' AS rule,
  printf('device %d: %.1f %% of reserved GPU memory (%.3f GiB) is free'
         || ' space inside %d segments that hold live blocks'
         || ' (fragmentation)', s.device, s.pct,
         s.fragmented_bytes / 1073741824.0, s.n_used) AS message,
  round(s.pct, 2) AS value, th.inactive_pct AS threshold,
  'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (or max_split_size_mb)'
    AS hint
FROM s CROSS JOIN th
WHERE s.pct > th.inactive_pct AND s.n_used > th.min_segments
ORDER BY s.device;
