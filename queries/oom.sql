-- name: oom
-- description: Out-of-memory context from the snapshot's trace: each `oom`
-- description: entry with the request that failed, the free device memory
-- description: the allocator saw and the replayed allocated / reserved
-- description: bytes at that moment, then the entries just before it and
-- description: the largest sources of memory live at the OOM.  Empty when
-- description: the trace holds no oom entry.
-- param: before:int>=0 = 20     trace entries listed before each OOM
-- param: top:int>=0 = 10        live sources listed per OOM
-- column: section        'oom', 'before' or 'live'
-- column: device         CUDA ordinal
-- column: oom_idx        index of the oom entry this row belongs to
-- column: event_idx      oom/before: trace entry index
-- column: action         oom/before: trace action
-- column: size_bytes     oom: bytes requested; before: entry size; live: bytes
-- column: count          live: allocations
-- column: allocated_bytes  oom/before: allocated after the entry
-- column: reserved_bytes  oom/before: reserved after the entry
-- column: device_free_bytes  oom: free device memory reported
-- column: source         first user frame 'file:line function', or category
WITH s AS (
  SELECT * FROM snapshot WHERE run_id = :run
),
o AS (
  SELECT e.* FROM alloc_event e
  WHERE e.snapshot_id IN (SELECT id FROM s) AND e.action = 'oom'
),
src AS (
  SELECT st.id AS stack_id,
    coalesce(f.filename || ':' || f.line || ' ' || f.name, st.category)
      AS source
  FROM stack st LEFT JOIN frame f ON f.id = st.user_frame_id
  WHERE st.run_id = :run
),
oom_rows AS (
  SELECT 'oom' AS section, s.device, o.idx AS oom_idx, o.idx AS event_idx,
    o.action, o.size AS size_bytes, NULL AS count,
    o.allocated_after AS allocated_bytes, o.reserved_after AS reserved_bytes,
    o.device_free AS device_free_bytes,
    src.source, s.id AS sid, 1 AS sec, 0 AS ord
  FROM o JOIN s ON s.id = o.snapshot_id
  LEFT JOIN src ON src.stack_id = o.stack_id
),
before_rows AS (
  SELECT 'before', s.device, o.idx, e.idx, e.action, e.size, NULL,
    e.allocated_after, e.reserved_after, NULL, src.source, s.id, 2, e.idx
  FROM o JOIN s ON s.id = o.snapshot_id
  JOIN alloc_event e ON e.snapshot_id = o.snapshot_id
    AND e.idx < o.idx AND e.idx >= o.idx - :before
  LEFT JOIN src ON src.stack_id = e.stack_id
),
live AS (
  SELECT o.snapshot_id, o.idx AS oom_idx, e.size, e.stack_id
  FROM o JOIN alloc_event e ON e.snapshot_id = o.snapshot_id
  WHERE e.action = 'alloc' AND e.idx < o.idx
    AND (e.free_idx IS NULL OR e.free_idx > o.idx)
),
live_rows AS (
  SELECT 'live', s.device, l.oom_idx, NULL, NULL, sum(l.size), count(*),
    NULL, NULL, NULL, coalesce(src.source, '(no stack recorded)'), s.id, 3,
    row_number() OVER (PARTITION BY l.snapshot_id, l.oom_idx
                       ORDER BY sum(l.size) DESC, src.source) AS rk
  FROM live l JOIN s ON s.id = l.snapshot_id
  LEFT JOIN src ON src.stack_id = l.stack_id
  GROUP BY l.snapshot_id, l.oom_idx, src.source
)
SELECT section, device, oom_idx, event_idx, action, size_bytes, count,
  allocated_bytes, reserved_bytes, device_free_bytes, source
FROM (SELECT * FROM oom_rows UNION ALL SELECT * FROM before_rows
      UNION ALL SELECT * FROM live_rows WHERE rk <= :top)
ORDER BY sid, oom_idx, sec, ord;
