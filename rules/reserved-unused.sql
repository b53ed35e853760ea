-- name: reserved-unused
-- description: Reserved but unused GPU memory in the memory snapshots:
-- description: whole cached segments without a live block, per snapshot
-- description: device, above unused_pct of reserved.  The caching
-- description: allocator keeps them for later requests; other processes
-- description: (and a later large request of another size) cannot use
-- description: them.  Not fragmentation: expandable_segments does nothing
-- description: for them.  Reads advice_threshold (reserved-unused,
-- description: unused_pct), shared with the fragmentation query.
-- param: unused_pct:number>=0 =  unused / reserved, % (empty: advice_threshold reserved-unused.unused_pct)
WITH th AS (
  SELECT coalesce(:unused_pct, (SELECT value FROM advice_threshold
           WHERE advice = 'reserved-unused' AND name = 'unused_pct'))
      AS unused_pct
),
s AS (
  SELECT device, unused_segments, unused_bytes,
    100.0 * unused_bytes / max(reserved_bytes, 1) AS pct,
    (SELECT max(g.total_size) FROM segment g
     WHERE g.snapshot_id = snapshot.id
       AND EXISTS (SELECT 1 FROM block b WHERE b.snapshot_id = g.snapshot_id
                   AND b.segment_id = g.id)
       AND NOT EXISTS (SELECT 1 FROM block b
                       WHERE b.snapshot_id = g.snapshot_id
                         AND b.segment_id = g.id
                         AND b.state <> 'inactive')) AS largest
  FROM snapshot WHERE run_id = :run
)
SELECT 'low' AS severity, 'reserved-unused' AS rule,
  printf('device %d: %.1f %% of reserved GPU memory (%.3f GiB in %d cached'
         || ' segments, the largest %.3f GiB) holds no live block: reserved'
         || ' but unused', s.device, s.pct, s.unused_bytes / 1073741824.0,
         s.unused_segments, coalesce(s.largest, 0) / 1073741824.0)
    AS message,
  round(s.pct, 2) AS value, th.unused_pct AS threshold,
  'torch.cuda.empty_cache() after the phase that needed the memory returns'
  || ' it; cap the cache with torch.cuda.set_per_process_memory_fraction or'
  || ' PYTORCH_CUDA_ALLOC_CONF=garbage_collection_threshold:0.8'
    AS hint
FROM s CROSS JOIN th
WHERE s.pct > th.unused_pct
ORDER BY s.device;
