-- name: memory-summary
-- description: Memory snapshot totals per device (reserved, allocated,
-- description: active, inactive, fragmentation, utilisation, segments,
-- description: blocks), then the largest active blocks with their source.
-- param: top:int>=0 = 10        largest active blocks listed per device
-- column: section        'total' (one row per device) or 'largest'
-- column: device         CUDA ordinal
-- column: segments       total: segments (cudaMalloc ranges)
-- column: blocks         total: blocks; largest: rank by size
-- column: active_blocks  total: allocated + pending-free blocks
-- column: reserved_bytes  total: bytes in segments
-- column: allocated_bytes  requested bytes of allocated blocks
-- column: active_bytes   block bytes in use or awaiting free
-- column: inactive_bytes  total: free bytes inside segments
-- column: internal_free_bytes  total: rounding loss (size - requested)
-- column: fragmentation_pct  total: fragmented (free inside segments with live blocks) / reserved, %
-- column: reserved_unused_pct  total: cached segments without a live block / reserved, %
-- column: utilization_pct  total: active / reserved, %
-- column: peak_allocated_bytes  total: peak allocated from the replay
-- column: source         largest: first user frame 'file:line function'
-- column: state          largest: block state
WITH s AS (
  SELECT * FROM snapshot WHERE run_id = :run
),
tot AS (
  SELECT 'total' AS section, s.device, s.n_segments AS segments,
    s.n_blocks AS blocks,
    (SELECT count(*) FROM block b WHERE b.snapshot_id = s.id
       AND b.state <> 'inactive') AS active_blocks,
    s.reserved_bytes, s.allocated_bytes, s.active_bytes, s.inactive_bytes,
    s.internal_free_bytes,
    round(100.0 * s.fragmented_bytes / max(s.reserved_bytes, 1), 2)
      AS fragmentation_pct,
    round(100.0 * s.unused_bytes / max(s.reserved_bytes, 1), 2)
      AS reserved_unused_pct,
    round(100.0 * s.active_bytes / max(s.reserved_bytes, 1), 2)
      AS utilization_pct,
    s.peak_allocated_bytes, NULL AS source, NULL AS state,
    s.id AS sid, 0 AS ord
  FROM s
),
big AS (
  SELECT b.*, row_number() OVER (PARTITION BY b.snapshot_id
                                 ORDER BY b.size DESC, b.address) AS rk
  FROM block b
  WHERE b.snapshot_id IN (SELECT id FROM s) AND b.state <> 'inactive'
),
lg AS (
  SELECT 'largest', s.device, NULL, big.rk, NULL, NULL,
    big.requested_size, big.size, NULL, NULL, NULL, NULL, NULL, NULL,
    coalesce(f.filename || ':' || f.line || ' ' || f.name, st.category,
             '(no stack recorded)'),
    big.state, s.id, big.rk
  FROM big JOIN s ON s.id = big.snapshot_id
  LEFT JOIN stack st ON st.id = big.stack_id
  LEFT JOIN frame f ON f.id = st.user_frame_id
  WHERE big.rk <= :top
)
SELECT section, device, segments, blocks, active_blocks, reserved_bytes,
  allocated_bytes, active_bytes, inactive_bytes, internal_free_bytes,
  fragmentation_pct, reserved_unused_pct, utilization_pct,
  peak_allocated_bytes, source, state
FROM (SELECT * FROM tot UNION ALL SELECT * FROM lg)
ORDER BY sid, ord;
