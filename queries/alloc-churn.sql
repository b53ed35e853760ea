-- name: alloc-churn
-- description: Allocation churn in the snapshot's trace: allocation sizes
-- description: of at least min_mb MiB ranked by count x size, each with its
-- description: main sources (first user-level frame, skipping torch
-- description: internals listed in memory_frame_skip) and source category
-- description: (memory_source_rule: gradient-checkpoint recompute, BnB
-- description: dequantization, ScatterMoE LoRA, optimizer, LayerNorm, FLA
-- description: linear attention, other).
-- param: min_mb:number>=0 = 1      smallest allocation size counted, MiB
-- param: limit:int>=0 = 20      sizes to show
-- column: device         CUDA ordinal
-- column: size_bytes     requested size of the allocations
-- column: count          allocations of that size in the trace
-- column: total_bytes    count x size
-- column: pct            share of all allocated bytes of at least min_mb, %
-- column: freed          allocations of that size freed within the trace
-- column: avg_lifetime_ms  mean time from alloc to free_requested, ms
-- column: category       source category with the most bytes
-- column: sources        up to 3 first user frames 'file:line function (count)'
-- column: pct_bar        pct as a bar (table output)
WITH s AS (
  SELECT * FROM snapshot WHERE run_id = :run
),
a AS (
  SELECT e.snapshot_id, e.idx, e.size, e.time_us, e.free_idx,
    coalesce(st.category, 'unknown') AS category,
    coalesce(f.filename || ':' || f.line || ' ' || f.name,
             '(no user frame)') AS frame
  FROM alloc_event e
  LEFT JOIN stack st ON st.id = e.stack_id
  LEFT JOIN frame f ON f.id = st.user_frame_id
  WHERE e.snapshot_id IN (SELECT id FROM s) AND e.action = 'alloc'
    AND e.size >= :min_mb * 1048576
),
sz AS (
  SELECT a.snapshot_id, a.size, count(*) AS n,
    count(a.free_idx) AS freed,
    avg((fe.time_us - a.time_us) / 1000.0) AS life_ms
  FROM a LEFT JOIN alloc_event fe
    ON fe.snapshot_id = a.snapshot_id AND fe.idx = a.free_idx
  GROUP BY a.snapshot_id, a.size
),
tot AS (
  SELECT snapshot_id, sum(size) AS bytes FROM a GROUP BY snapshot_id
),
src AS (
  SELECT snapshot_id, size, frame, count(*) AS n,
    row_number() OVER (PARTITION BY snapshot_id, size
                       ORDER BY count(*) DESC, frame) AS rk
  FROM a GROUP BY snapshot_id, size, frame
),
cat AS (
  SELECT snapshot_id, size, category,
    row_number() OVER (PARTITION BY snapshot_id, size
                       ORDER BY count(*) DESC, category) AS rk
  FROM a GROUP BY snapshot_id, size, category
)
SELECT s.device, sz.size AS size_bytes, sz.n AS count,
  sz.n * sz.size AS total_bytes,
  round(100.0 * sz.n * sz.size / max(tot.bytes, 1), 2) AS pct,
  sz.freed,
  round(sz.life_ms, 3) AS avg_lifetime_ms,
  (SELECT c.category FROM cat c WHERE c.snapshot_id = sz.snapshot_id
     AND c.size = sz.size AND c.rk = 1) AS category,
  (SELECT group_concat(x.frame || ' (' || x.n || ')', '; ')
   FROM (SELECT frame, n FROM src
         WHERE src.snapshot_id = sz.snapshot_id AND src.size = sz.size
           AND src.rk <= 3 ORDER BY src.rk) x) AS sources,
  round(100.0 * sz.n * sz.size / max(tot.bytes, 1), 2) AS pct_bar
FROM sz JOIN s ON s.id = sz.snapshot_id
JOIN tot ON tot.snapshot_id = sz.snapshot_id
ORDER BY sz.n * sz.size DESC, sz.size DESC
LIMIT :limit;
