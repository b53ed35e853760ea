-- 051-memory-split.sql — "reserved but unused" apart from fragmentation
-- (issue 31): the inactive bytes of a snapshot were all called
-- fragmentation, but most of them are usually whole cached segments with
-- no live block (on cs336-fullstep-2025 5.6 of the 5.8 GiB inactive).
-- Those are the caching allocator keeping memory it may need again:
-- torch.cuda.empty_cache() returns them, a memory limit caps them;
-- expandable_segments does nothing for them.  Fragmentation proper is
-- the free space inside segments that hold live blocks: only a request
-- that fits a hole can use it, and expandable_segments is its remedy.
--   snapshot.unused_segments, unused_bytes   whole segments without a
--                                            live block (their total size)
--   snapshot.fragmented_bytes                inactive bytes of the other
--                                            segments
-- inactive_bytes = fragmented_bytes + the inactive bytes of the unused
-- segments (= unused_bytes when the blocks tile them).  Written by
-- load_snapshot.c; older rows are filled below from their blocks.
ALTER TABLE snapshot ADD COLUMN unused_segments INTEGER;
ALTER TABLE snapshot ADD COLUMN unused_bytes INTEGER;
ALTER TABLE snapshot ADD COLUMN fragmented_bytes INTEGER;

-- Snapshots loaded before this file.
WITH seg AS (
  SELECT g.snapshot_id, g.total_size, g.inactive_bytes,
    EXISTS (SELECT 1 FROM block b WHERE b.segment_id = g.id) AS has_blocks,
    EXISTS (SELECT 1 FROM block b WHERE b.segment_id = g.id
            AND b.state <> 'inactive') AS live
  FROM segment g
),
tot AS (
  SELECT snapshot_id,
    sum(has_blocks AND NOT live) AS n_unused,
    sum(CASE WHEN has_blocks AND NOT live THEN total_size ELSE 0 END)
      AS unused,
    sum(CASE WHEN has_blocks AND NOT live THEN 0 ELSE inactive_bytes END)
      AS frag
  FROM seg GROUP BY snapshot_id
)
UPDATE snapshot SET
  unused_segments = coalesce((SELECT n_unused FROM tot
                              WHERE tot.snapshot_id = snapshot.id), 0),
  unused_bytes = coalesce((SELECT unused FROM tot
                           WHERE tot.snapshot_id = snapshot.id), 0),
  fragmented_bytes = coalesce((SELECT frag FROM tot
                               WHERE tot.snapshot_id = snapshot.id), 0)
WHERE unused_bytes IS NULL;

-- Per-snapshot totals (006) with the split.
DROP VIEW memory_summary;
CREATE VIEW memory_summary AS
SELECT s.run_id, s.id AS snapshot_id, s.rank, s.device, s.n_segments,
  s.n_blocks, s.reserved_bytes, s.allocated_bytes, s.active_bytes,
  s.inactive_bytes,
  round(100.0 * s.fragmented_bytes / max(s.reserved_bytes, 1), 2)
    AS fragmentation_pct,
  round(100.0 * s.unused_bytes / max(s.reserved_bytes, 1), 2)
    AS reserved_unused_pct,
  round(100.0 * s.active_bytes / max(s.reserved_bytes, 1), 2)
    AS utilization_pct,
  s.peak_allocated_bytes, s.peak_event_idx
FROM snapshot s;

-- The thresholds: fragmentation's now apply to the fragmented bytes and
-- to the segments that hold live blocks; reserved-unused gets its own.
UPDATE advice_threshold SET
  description = 'fragmented bytes (free inside segments that hold live'
    || ' blocks) over reserved bytes of a snapshot above which'
    || ' expandable_segments is recommended'
 WHERE advice = 'fragmentation' AND name = 'inactive_pct';
UPDATE advice_threshold SET
  description = 'more segments holding live blocks than this are needed for'
    || ' the recommendation'
 WHERE advice = 'fragmentation' AND name = 'min_segments';
INSERT INTO advice_threshold VALUES
  ('reserved-unused', 'unused_pct', 10, '%',
   'rule reserved-unused, query fragmentation (recommendation)',
   'bytes in cached segments without a live block over reserved bytes of a'
   || ' snapshot above which empty_cache / a memory limit is recommended');

-- The core metrics (026) with fragmentation_pct = fragmented / reserved
-- and reserved_unused_pct = unused / reserved (the two add up to the old
-- fragmentation_pct, inactive / reserved, when blocks tile segments).
DROP VIEW run_metric_core_calc;
CREATE VIEW run_metric_core_calc AS
WITH
tg AS MATERIALIZED (SELECT run_id FROM core_target),
steady AS MATERIALIZED (
  SELECT run_id, rank, step, dur FROM step_steady
  WHERE steady = 1 AND run_id IN (SELECT run_id FROM tg)
),
ranked AS (
  SELECT run_id, dur,
    row_number() OVER (PARTITION BY run_id ORDER BY dur) AS i,
    count(*) OVER (PARTITION BY run_id) AS n
  FROM steady
),
nstep AS (
  SELECT run_id, count(*) AS n FROM step
  WHERE run_id IN (SELECT run_id FROM tg) GROUP BY run_id
),
perrank AS (
  SELECT a.run_id, max(a.n) AS n, max(coalesce(b.ns, 0)) AS ns
  FROM (SELECT run_id, rank, count(*) AS n FROM step
        WHERE run_id IN (SELECT run_id FROM tg) GROUP BY run_id, rank) a
  LEFT JOIN (SELECT run_id, rank, count(*) AS ns FROM steady
             GROUP BY run_id, rank) b
    ON b.run_id = a.run_id AND b.rank = a.rank
  GROUP BY a.run_id
),
busy AS (
  SELECT t.run_id,
    100.0 * sum(CASE WHEN t.class IN ('kernel', 'memcpy', 'memset', 'comm')
                     THEN t.ns ELSE 0 END) / max(sum(t.ns), 1) AS pct
  FROM step_time t
  JOIN steady s ON s.run_id = t.run_id AND s.rank = t.rank
    AND s.step = t.step
  WHERE t.run_id IN (SELECT run_id FROM tg)
  GROUP BY t.run_id
),
gos AS MATERIALIZED (
  SELECT run_id, kind, name_id, total_ns FROM gpu_op_summary
  WHERE run_id IN (SELECT run_id FROM tg)
),
kname AS (
  SELECT run_id, name_id, sum(total_ns) AS ns
  FROM gos WHERE kind = 'kernel' GROUP BY run_id, name_id
),
kc AS MATERIALIZED (
  SELECT name_id, scheme, category FROM kernel_category
  WHERE name_id IN (SELECT name_id FROM gos)
),
cat AS (
  SELECT g.run_id, c.scheme, c.category, sum(g.total_ns) AS ns
  FROM gos g JOIN kc c ON c.name_id = g.name_id
  GROUP BY g.run_id, c.scheme, c.category
),
gtot AS (
  SELECT run_id, sum(total_ns) AS ns FROM gos GROUP BY run_id
),
co AS (
  SELECT * FROM comm_overlap WHERE run_id IN (SELECT run_id FROM tg)
),
sn AS (
  SELECT * FROM snapshot WHERE run_id IN (SELECT run_id FROM tg)
)
SELECT run_id, 'step_time_median_ms' AS metric, avg(dur) / 1e6 AS value
  FROM ranked WHERE i IN ((n + 1) / 2, (n + 2) / 2) GROUP BY run_id
UNION ALL
SELECT run_id, 'step_time_p90_ms', dur / 1e6
  FROM ranked WHERE i = (9 * n + 9) / 10
UNION ALL
SELECT run_id, 'step_time_mean_ms', avg(dur) / 1e6 FROM steady
  GROUP BY run_id
UNION ALL
SELECT run_id, 'steps', n FROM perrank
UNION ALL
SELECT run_id, 'steady_steps', ns FROM perrank
UNION ALL
SELECT run_id, 'step_gpu_busy_pct', pct FROM busy
UNION ALL
SELECT run_id, 'gpu_util_pct',
    100.0 * sum(busy_ns) / max(sum(last_end - first_ts), 1)
  FROM gpu_busy WHERE run_id IN (SELECT run_id FROM tg) GROUP BY run_id
UNION ALL
SELECT g.run_id, 'gpu_ms', g.ns / 1e6 / s.n
  FROM gtot g JOIN nstep s ON s.run_id = g.run_id
UNION ALL
SELECT k.run_id, 'top_kernel_ms', max(k.ns) / 1e6 / s.n
  FROM kname k JOIN nstep s ON s.run_id = k.run_id GROUP BY k.run_id
UNION ALL
SELECT c.run_id, 'cat_' || c.scheme || ':' || c.category || '_pct',
    100.0 * c.ns / max(t.ns, 1)
  FROM cat c JOIN gtot t ON t.run_id = c.run_id
UNION ALL
SELECT run_id, 'comm_pct', 100.0 * sum(comm_ns) / max(sum(wall_ns), 1)
  FROM co GROUP BY run_id HAVING sum(n_comm) > 0
UNION ALL
SELECT run_id, 'comm_overlap_pct',
    100.0 * sum(overlap_ns) / max(sum(comm_ns), 1)
  FROM co GROUP BY run_id HAVING sum(n_comm) > 0
UNION ALL
SELECT o.run_id, 'exposed_comm_ms',
    sum(o.comm_ns - o.overlap_ns) / 1e6 / coalesce(max(s.n), 1)
  FROM co o LEFT JOIN nstep s ON s.run_id = o.run_id
  GROUP BY o.run_id HAVING sum(o.n_comm) > 0
UNION ALL
SELECT run_id, 'peak_allocated_bytes', max(peak_allocated_bytes)
  FROM sn GROUP BY run_id
UNION ALL
SELECT run_id, 'reserved_bytes', max(reserved_bytes)
  FROM sn GROUP BY run_id
UNION ALL
SELECT run_id, 'max_reserved_bytes',
    max(coalesce(max_reserved_bytes, reserved_bytes))
  FROM sn GROUP BY run_id
UNION ALL
SELECT run_id, 'fragmentation_pct',
    100.0 * sum(fragmented_bytes) / max(sum(reserved_bytes), 1)
  FROM sn GROUP BY run_id
UNION ALL
SELECT run_id, 'reserved_unused_pct',
    100.0 * sum(unused_bytes) / max(sum(reserved_bytes), 1)
  FROM sn GROUP BY run_id
UNION ALL
SELECT s.run_id, 'alloc_churn_bytes',
    1.0 * sum(a.size) / coalesce((SELECT n FROM nstep x
                                  WHERE x.run_id = s.run_id), 1)
  FROM sn s JOIN alloc_event a ON a.snapshot_id = s.id
  WHERE a.action = 'alloc' GROUP BY s.run_id;

-- Runs ingested before this file: their memory metrics again.
INSERT INTO core_target SELECT DISTINCT run_id FROM snapshot;
DELETE FROM core_run_metric WHERE metric IN ('fragmentation_pct',
  'reserved_unused_pct') AND run_id IN (SELECT run_id FROM core_target);
INSERT INTO core_run_metric SELECT * FROM run_metric_core_calc
  WHERE metric IN ('fragmentation_pct', 'reserved_unused_pct');
DELETE FROM core_target;
