-- name: fragmentation
-- description: Where the free memory inside the allocator's segments is:
-- description: segment size buckets, the largest inactive gaps, small
-- description: active blocks pinned between inactive neighbours, the
-- description: expandable_segments recommendation (fragmented bytes, free
-- description: inside segments that hold live blocks, above inactive_pct
-- description: of reserved and more than min_segments such segments:
-- description: advice_threshold fragmentation.*, the test of the
-- description: fragmentation rule), the empty_cache recommendation (whole
-- description: cached segments without a live block above unused_pct of
-- description: reserved: advice_threshold reserved-unused.unused_pct, the
-- description: test of the reserved-unused rule) and the usable capacity
-- description: and headroom.
-- param: gpu_gb:number>=0 =        GPU GiB (empty: the trace's device memory, else 80)
-- param: top:int>=0 = 10        rows per device in the 'gap' and 'pinned' sections
-- param: inactive_pct:number>=0 =  inactive / reserved, % (empty: advice_threshold fragmentation.inactive_pct)
-- param: min_segments:int>=0 =     more segments with live blocks than this (empty: advice_threshold fragmentation.min_segments)
-- param: unused_pct:number>=0 =    unused / reserved, % (empty: advice_threshold reserved-unused.unused_pct)
-- column: section        bucket, gap, pinned, capacity or recommendation
-- column: device         CUDA ordinal
-- column: item           bucket range, block address, capacity measure, setting
-- column: count          bucket: segments; pinned: blocks in the segment
-- column: total_bytes    bucket: reserved; gap/pinned: block size; capacity
-- column: inactive_bytes  bucket: free bytes inside; gap: free in its segment; recommendation: fragmented / unused bytes
-- column: pct            bucket: inactive/reserved; capacity: of device memory; recommendation: of reserved
-- column: detail         segment, source frame, or the recommendation text
WITH s AS (
  SELECT * FROM snapshot WHERE run_id = :run
),
th AS (
  SELECT coalesce(:inactive_pct, (SELECT value FROM advice_threshold
           WHERE advice = 'fragmentation' AND name = 'inactive_pct'))
      AS inactive_pct,
    coalesce(:min_segments, (SELECT value FROM advice_threshold
           WHERE advice = 'fragmentation' AND name = 'min_segments'))
      AS min_segments,
    coalesce(:unused_pct, (SELECT value FROM advice_threshold
           WHERE advice = 'reserved-unused' AND name = 'unused_pct'))
      AS unused_pct
),
gpu AS (
  SELECT CAST(coalesce(:gpu_gb * 1073741824.0,
    (SELECT max(total_mem_bytes) FROM device WHERE run_id = :run),
    80 * 1073741824.0) AS INTEGER) AS bytes,
    CASE WHEN :gpu_gb IS NOT NULL THEN 'gpu_gb parameter'
         WHEN (SELECT max(total_mem_bytes) FROM device
               WHERE run_id = :run) IS NOT NULL THEN 'trace deviceProperties'
         ELSE 'default 80 GiB' END AS origin
),
bk(ord, item, lo, hi) AS (VALUES
  (1, '<2 MB', 0, 2097152),
  (2, '2-64 MB', 2097152, 67108864),
  (3, '64-256 MB', 67108864, 268435456),
  (4, '256 MB-1 GB', 268435456, 1073741824),
  (5, '>=1 GB', 1073741824, 9223372036854775807)
),
buckets AS (
  SELECT 'bucket' AS section, s.device, bk.item,
    count(g.id) AS count, coalesce(sum(g.total_size), 0) AS total_bytes,
    coalesce(sum(g.inactive_bytes), 0) AS inactive_bytes,
    round(100.0 * coalesce(sum(g.inactive_bytes), 0)
          / max(coalesce(sum(g.total_size), 0), 1), 2) AS pct,
    NULL AS detail, s.id AS sid, 1 AS sec, bk.ord AS ord
  FROM s CROSS JOIN bk
  LEFT JOIN segment g ON g.snapshot_id = s.id
    AND g.total_size >= bk.lo AND g.total_size < bk.hi
  GROUP BY s.id, bk.ord
),
gaps AS (
  SELECT b.snapshot_id, b.address, b.size, g.total_size, g.inactive_bytes,
    g.idx AS seg_idx, g.n_blocks,
    row_number() OVER (PARTITION BY b.snapshot_id
                       ORDER BY b.size DESC, b.address) AS rk
  FROM block b JOIN segment g ON g.id = b.segment_id
  WHERE b.snapshot_id IN (SELECT id FROM s) AND b.state = 'inactive'
),
gap_rows AS (
  SELECT 'gap', s.device, printf('0x%x', gaps.address), NULL, gaps.size,
    gaps.inactive_bytes, NULL,
    printf('segment %d of %d bytes, %d blocks', gaps.seg_idx,
           gaps.total_size, gaps.n_blocks),
    s.id, 2, gaps.rk
  FROM gaps JOIN s ON s.id = gaps.snapshot_id
  WHERE gaps.rk <= :top
),
pinned AS (
  SELECT b.snapshot_id, b.address, b.size, b.stack_id, g.n_blocks,
    g.total_size,
    row_number() OVER (PARTITION BY b.snapshot_id
                       ORDER BY g.total_size DESC, b.size, b.address) AS rk,
    count(*) OVER (PARTITION BY b.snapshot_id) AS n
  FROM block b JOIN segment g ON g.id = b.segment_id
  WHERE b.snapshot_id IN (SELECT id FROM s)
    AND b.state <> 'inactive' AND b.size < 2097152
    AND b.prev_state = 'inactive' AND b.next_state = 'inactive'
),
pinned_rows AS (
  SELECT 'pinned', s.device, printf('0x%x', p.address), p.n_blocks, p.size,
    NULL, NULL,
    printf('pins a %d-byte segment; %s', p.total_size,
           coalesce(f.filename || ':' || f.line || ' ' || f.name,
                    '(no stack recorded)')),
    s.id, 3, p.rk
  FROM pinned p JOIN s ON s.id = p.snapshot_id
  LEFT JOIN stack st ON st.id = p.stack_id
  LEFT JOIN frame f ON f.id = st.user_frame_id
  WHERE p.rk <= :top
),
pinned_total AS (
  SELECT 'pinned', s.device, 'all', count(p.address),
    coalesce(sum(p.size), 0), NULL, NULL,
    'small active blocks (<2 MB) with inactive blocks on both sides',
    s.id, 3, 0
  FROM s LEFT JOIN pinned p ON p.snapshot_id = s.id
  GROUP BY s.id
),
cap AS (
  SELECT 'capacity', s.device, c.item, NULL, c.bytes, NULL,
    round(100.0 * c.bytes / max(gpu.bytes, 1), 2), c.detail, s.id, 4, c.ord
  FROM s CROSS JOIN gpu
  JOIN (
    SELECT s2.id AS sid, 1 AS ord, 'device memory' AS item, g2.bytes AS bytes,
      g2.origin AS detail
    FROM s s2, gpu g2
    UNION ALL SELECT s2.id, 2, 'reserved', s2.reserved_bytes,
      'in allocator segments' FROM s s2
    UNION ALL SELECT s2.id, 3, 'active', s2.active_bytes,
      'blocks in use or awaiting free' FROM s s2
    UNION ALL SELECT s2.id, 4, 'inactive', s2.inactive_bytes,
      'free inside segments: reserved unused + fragmented' FROM s s2
    UNION ALL SELECT s2.id, 4.1, 'reserved unused', s2.unused_bytes,
      printf('%d cached segments without a live block (empty_cache returns'
             || ' them)', s2.unused_segments) FROM s s2
    UNION ALL SELECT s2.id, 4.2, 'fragmented', s2.fragmented_bytes,
      'free inside segments that hold live blocks (reusable only by'
      || ' requests that fit)' FROM s s2
    UNION ALL SELECT s2.id, 5, 'headroom', g2.bytes - s2.reserved_bytes,
      'device memory not reserved' FROM s s2, gpu g2
    UNION ALL SELECT s2.id, 6, 'usable capacity', g2.bytes - s2.active_bytes,
      'headroom + inactive: what could still be allocated' FROM s s2, gpu g2
    UNION ALL SELECT s2.id, 7, 'largest free block',
      max(g2.bytes - s2.reserved_bytes,
          coalesce((SELECT max(b.size) FROM block b
                    WHERE b.snapshot_id = s2.id AND b.state = 'inactive'), 0)),
      'largest single request that fits without freeing' FROM s s2, gpu g2
    UNION ALL SELECT s2.id, 8, 'peak allocated', s2.peak_allocated_bytes,
      'from the trace replay' FROM s s2
  ) c ON c.sid = s.id
),
rec AS (
  SELECT 'recommendation', s.device, 'expandable_segments',
    s.n_segments - s.unused_segments,
    s.reserved_bytes, s.fragmented_bytes,
    round(100.0 * s.fragmented_bytes / max(s.reserved_bytes, 1), 2),
    CASE
      WHEN s.expandable_segments = 1 THEN 'already enabled'
      WHEN 100.0 * s.fragmented_bytes / max(s.reserved_bytes, 1)
             > th.inactive_pct
           AND s.n_segments - s.unused_segments > th.min_segments
        THEN 'recommended: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True'
             || printf(' (fragmented > %g %% of reserved across > %d'
                       || ' segments with live blocks)',
                       th.inactive_pct, th.min_segments)
      ELSE printf('not needed (rule: fragmented > %g %% of reserved and > %d'
                  || ' segments with live blocks)', th.inactive_pct,
                  th.min_segments)
    END,
    s.id, 5, 0
  FROM s CROSS JOIN th
  UNION ALL
  SELECT 'recommendation', s.device, 'empty_cache', s.unused_segments,
    s.reserved_bytes, s.unused_bytes,
    round(100.0 * s.unused_bytes / max(s.reserved_bytes, 1), 2),
    CASE
      WHEN 100.0 * s.unused_bytes / max(s.reserved_bytes, 1) > th.unused_pct
        THEN 'recommended: torch.cuda.empty_cache() after the peak, or a'
             || ' memory limit'
             || printf(' (reserved unused > %g %% of reserved)',
                       th.unused_pct)
      ELSE printf('not needed (rule: reserved unused > %g %% of reserved)',
                  th.unused_pct)
    END,
    s.id, 5, 1
  FROM s CROSS JOIN th
)
SELECT section, device, item, count, total_bytes, inactive_bytes, pct, detail
FROM (SELECT * FROM buckets UNION ALL SELECT * FROM gap_rows
      UNION ALL SELECT * FROM pinned_total UNION ALL SELECT * FROM pinned_rows
      UNION ALL SELECT * FROM cap UNION ALL SELECT * FROM rec)
ORDER BY sid, sec, ord;
