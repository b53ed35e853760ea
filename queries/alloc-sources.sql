-- name: alloc-sources
-- description: Active memory at the snapshot by source: per source file
-- description: and per 'function:line' of the first user-level frame of
-- description: each active block's stack (blocks without a recorded stack
-- description: are grouped as '(no stack recorded)').
-- param: limit:int>=0 = 20      rows per section and device
-- column: section        'file' or 'line'
-- column: device         CUDA ordinal
-- column: source         file name, or 'function:line  file'
-- column: category       source category (most bytes)
-- column: blocks         active blocks
-- column: active_bytes   block bytes (allocated + pending free)
-- column: requested_bytes  requested bytes of those blocks
-- column: pct            share of the device's active bytes, %
-- column: pct_bar        pct as a bar (table output)
WITH s AS (
  SELECT * FROM snapshot WHERE run_id = :run
),
b AS (
  SELECT b.snapshot_id, b.size, b.requested_size,
    coalesce(st.category, 'unknown') AS category,
    CASE WHEN b.stack_id IS NULL THEN '(no stack recorded)'
         WHEN f.id IS NULL THEN '(no user frame)'
         ELSE f.filename END AS file,
    CASE WHEN b.stack_id IS NULL THEN '(no stack recorded)'
         WHEN f.id IS NULL THEN '(no user frame)'
         ELSE f.name || ':' || f.line || '  ' || f.filename END AS line
  FROM block b
  LEFT JOIN stack st ON st.id = b.stack_id
  LEFT JOIN frame f ON f.id = st.user_frame_id
  WHERE b.snapshot_id IN (SELECT id FROM s) AND b.state <> 'inactive'
),
g AS (
  SELECT 'file' AS section, snapshot_id, file AS source, count(*) AS blocks,
    sum(size) AS active_bytes, sum(requested_size) AS requested_bytes,
    1 AS sec
  FROM b GROUP BY snapshot_id, file
  UNION ALL
  SELECT 'line', snapshot_id, line, count(*), sum(size), sum(requested_size),
    2
  FROM b GROUP BY snapshot_id, line
),
r AS (
  SELECT g.*, row_number() OVER (PARTITION BY snapshot_id, sec
                                 ORDER BY active_bytes DESC, source) AS rk
  FROM g
)
SELECT r.section, s.device, r.source,
  (SELECT b2.category FROM b b2
   WHERE b2.snapshot_id = r.snapshot_id
     AND (CASE r.sec WHEN 1 THEN b2.file ELSE b2.line END) = r.source
   GROUP BY b2.category ORDER BY sum(b2.size) DESC, b2.category LIMIT 1)
    AS category,
  r.blocks, r.active_bytes, r.requested_bytes,
  round(100.0 * r.active_bytes / max(s.active_bytes, 1), 2) AS pct,
  round(100.0 * r.active_bytes / max(s.active_bytes, 1), 2) AS pct_bar
FROM r JOIN s ON s.id = r.snapshot_id
WHERE r.rk <= :limit
ORDER BY s.id, r.sec, r.rk;
