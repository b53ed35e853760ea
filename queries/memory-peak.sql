-- name: memory-peak
-- description: Peak allocated memory from the snapshot's trace replay: when
-- description: it happened, what was live then by source category and by
-- description: first user frame, the persistent baseline (allocated at the
-- description: snapshot minus what the trace allocated and never freed) and
-- description: the transient part of the peak and the headroom left.
-- description: Without a trace the peak is the snapshot's own state.
-- param: gpu_gb:number>=0 =        GPU GiB (empty: the trace's device memory, else 80)
-- param: top:int>=0 = 10        user frames listed per device
-- column: section        peak, category or frame
-- column: device         CUDA ordinal
-- column: item           peak: 'peak'; category name; 'file:line function'
-- column: event_idx      peak: index of the trace entry reaching the peak
-- column: time_ms        peak: ms since the first trace entry
-- column: count          allocations live at the peak
-- column: live_bytes     requested bytes live at the peak
-- column: pct            share of the peak, %
-- column: reserved_bytes  peak: reserved at that entry
-- column: baseline_bytes  peak: persistent baseline estimate
-- column: transient_bytes  peak: peak minus the persistent baseline
-- column: headroom_bytes  peak: device memory minus the peak reserved
WITH s AS (
  SELECT * FROM snapshot WHERE run_id = :run
),
gpu AS (
  SELECT CAST(coalesce(:gpu_gb * 1073741824.0,
    (SELECT max(total_mem_bytes) FROM device WHERE run_id = :run),
    80 * 1073741824.0) AS INTEGER) AS bytes
),
-- allocations live at the peak: trace allocs not yet freed, blocks freed
-- in the trace but allocated before it, and blocks allocated before the
-- trace that are still allocated at the snapshot
live AS (
  SELECT e.snapshot_id, e.size AS bytes, e.stack_id
  FROM alloc_event e JOIN s ON s.id = e.snapshot_id
  WHERE e.action = 'alloc' AND e.idx <= s.peak_event_idx
    AND (e.free_idx IS NULL OR e.free_idx > s.peak_event_idx)
  UNION ALL
  SELECT e.snapshot_id, e.size, -1
  FROM alloc_event e JOIN s ON s.id = e.snapshot_id
  WHERE e.action = 'free_requested' AND e.alloc_idx IS NULL
    AND e.idx > s.peak_event_idx
  UNION ALL
  SELECT b.snapshot_id, b.requested_size, b.stack_id
  FROM block b JOIN s ON s.id = b.snapshot_id
  WHERE b.state = 'active_allocated' AND b.alloc_idx IS NULL
),
named AS (
  SELECT l.snapshot_id, l.bytes,
    CASE WHEN l.stack_id = -1 THEN 'allocated before the trace'
         ELSE coalesce(st.category, 'unknown (no stack recorded)') END
      AS category,
    CASE WHEN l.stack_id = -1 THEN '(allocated before the trace)'
         ELSE coalesce(f.filename || ':' || f.line || ' ' || f.name,
                       '(no user frame)') END AS frame
  FROM live l
  LEFT JOIN stack st ON st.id = l.stack_id
  LEFT JOIN frame f ON f.id = st.user_frame_id
),
peak AS (
  SELECT 'peak' AS section, s.device, 'peak' AS item,
    s.peak_event_idx AS event_idx,
    round((s.peak_time_us - s.first_time_us) / 1000.0, 3) AS time_ms,
    (SELECT count(*) FROM named n WHERE n.snapshot_id = s.id) AS count,
    s.peak_allocated_bytes AS live_bytes, 100.0 AS pct,
    s.peak_reserved_bytes AS reserved_bytes,
    s.allocated_bytes - coalesce(s.trace_live_bytes, 0) AS baseline_bytes,
    s.peak_allocated_bytes - s.allocated_bytes
      + coalesce(s.trace_live_bytes, 0) AS transient_bytes,
    gpu.bytes - s.peak_reserved_bytes AS headroom_bytes,
    s.id AS sid, 1 AS sec, 0 AS ord
  FROM s, gpu
),
cat AS (
  SELECT 'category', s.device, n.category, NULL, NULL, count(*),
    sum(n.bytes),
    round(100.0 * sum(n.bytes) / max(s.peak_allocated_bytes, 1), 2),
    NULL, NULL, NULL, NULL, s.id, 2,
    row_number() OVER (PARTITION BY s.id ORDER BY sum(n.bytes) DESC,
                       n.category)
  FROM named n JOIN s ON s.id = n.snapshot_id
  GROUP BY s.id, n.category
),
fr AS (
  SELECT 'frame', s.device, n.frame, NULL, NULL, count(*), sum(n.bytes),
    round(100.0 * sum(n.bytes) / max(s.peak_allocated_bytes, 1), 2),
    NULL, NULL, NULL, NULL, s.id, 3,
    row_number() OVER (PARTITION BY s.id ORDER BY sum(n.bytes) DESC,
                       n.frame) AS rk
  FROM named n JOIN s ON s.id = n.snapshot_id
  GROUP BY s.id, n.frame
)
SELECT section, device, item, event_idx, time_ms, count, live_bytes, pct,
  reserved_bytes, baseline_bytes, transient_bytes, headroom_bytes
FROM (SELECT * FROM peak UNION ALL SELECT * FROM cat
      UNION ALL SELECT * FROM fr WHERE rk <= :top)
ORDER BY sid, sec, ord;
