-- name: annotation-kernels
-- description: GPU time and GPU ops under each CPU user annotation
-- description: (record_function), nested annotations by their full path
-- description: ('forward / attention'): an op belongs to the innermost
-- description: annotation around its launch call on the launching thread and
-- description: to every enclosing one (inclusive columns); self columns count
-- description: only ops whose innermost annotation is this path.
-- description: ProfilerStep#N ranges are steps, not path elements; by_step=1
-- description: gives one row per step and path.  GPU-side annotations
-- description: (gpu_user_annotation) add rows 'gpu: NAME' for the ops that
-- description: start inside their range on their stream.
-- param: rank:rank =           only this rank (empty: all ranks)
-- param: by_step:bool = 0      1: one row per (step, path)
-- param: limit:int>=1 = 50       rows to show
-- column: rank             rank
-- column: step             step of the ops (empty unless by_step=1)
-- column: path             annotation names, outermost first
-- column: depth            nesting depth, 0 = outermost
-- column: ops              GPU ops launched under the path (inclusive)
-- column: gpu_ms           their summed GPU time, ms (inclusive)
-- column: self_ops         ops whose innermost annotation is the path
-- column: self_gpu_ms      their GPU time, ms
-- column: gpu_pct          gpu_ms / the GPU time of all ops of the rank, %
WITH t AS MATERIALIZED (
  SELECT id, rank, depth, path FROM hta_annotation_tree
  WHERE run_id = :run AND (:rank IS NULL OR rank = :rank)
),
-- ops summed per annotation before the join to t (joined op by op,
-- SQLite scanned t for each: 8 s at 10x)
k AS MATERIALIZED (
  SELECT rank, CASE WHEN :by_step = 1 THEN step END AS step,
    annotation_id, count(*) AS n, sum(dur) AS ns
  FROM hta_annotation_kernel
  WHERE run_id = :run AND (:rank IS NULL OR rank = :rank)
    AND annotation_id IS NOT NULL
  GROUP BY 1, 2, 3
),
self AS (
  SELECT k.rank, k.step, t.path, t.depth, sum(k.n) AS n, sum(k.ns) AS ns
  FROM k JOIN t ON t.id = k.annotation_id
  GROUP BY k.rank, k.step, t.path
),
paths AS (SELECT DISTINCT rank, path, depth FROM t),
tot AS (
  SELECT rank, sum(dur) AS ns FROM hta_gpu_op
  WHERE run_id = :run AND (:rank IS NULL OR rank = :rank) GROUP BY rank
),
incl AS (
  SELECT p.rank, s.step, p.path, p.depth,
    sum(s.n) AS n, sum(s.ns) AS ns,
    sum(CASE WHEN s.path = p.path THEN s.n ELSE 0 END) AS self_n,
    sum(CASE WHEN s.path = p.path THEN s.ns ELSE 0 END) AS self_ns
  FROM paths p JOIN self s ON s.rank = p.rank
    AND (s.path = p.path OR substr(s.path, 1, length(p.path) + 3)
                            = p.path || ' / ')
  GROUP BY p.rank, s.step, p.path
),
-- the GPU-side ranges first (joined through the annotation_run index,
-- each op read every earlier CPU annotation: 21 s at 10x)
ga AS MATERIALIZED (
  SELECT a.id, a.rank, a.pid, a.tid, a.ts, a.dur, a.name_id
  FROM annotation a
  WHERE a.run_id = :run AND a.kind = 'gpu_user'
    AND (:rank IS NULL OR a.rank = :rank)
),
-- the ops of a range: a join of each range with the ops of its stream
-- read every op of the rank per range (1.2 s of CPU on
-- tracelens-mi300-resnet-ckpt x10, 210 ranges); instead one sweep of
-- each stream in time order, the ranges' starts and ends among its ops
-- (before the ops at the same time: an op at the start is inside, at
-- the end outside), the ops before each boundary counted as it goes.
-- by_step=1 splits a range's ops by their step: the join below.
gb AS (
  SELECT rank, pid AS device, tid AS stream, ts AS t, 0 AS o, id AS aid,
    0 AS dur
  FROM ga WHERE :by_step = 0 AND dur > 0 AND pid IS NOT NULL
    AND tid IS NOT NULL
  UNION ALL
  SELECT rank, pid, tid, ts + dur, 0, -id, 0
  FROM ga WHERE :by_step = 0 AND dur > 0 AND pid IS NOT NULL
    AND tid IS NOT NULL
  UNION ALL
  SELECT g.rank, g.device, g.stream, g.ts, 1, NULL, g.dur
  FROM (SELECT 1 FROM ga LIMIT 1) one     -- most runs have no GPU ranges:
  CROSS JOIN hta_gpu_op g                 -- then no op is read
  WHERE :by_step = 0 AND g.run_id = :run
    AND (:rank IS NULL OR g.rank = :rank)
    AND (g.rank, g.device, g.stream) IN (SELECT rank, pid, tid FROM ga)
),
cum AS (
  SELECT aid, sum(o) OVER w AS n, sum(dur) OVER w AS ns FROM gb
  WINDOW w AS (PARTITION BY rank, device, stream ORDER BY t, o
               ROWS UNBOUNDED PRECEDING)
),
ga_ops AS (                   -- per range: the ops before its end - before its start
  SELECT abs(aid) AS aid, sum(CASE WHEN aid > 0 THEN -n ELSE n END) AS n,
    sum(CASE WHEN aid > 0 THEN -ns ELSE ns END) AS ns
  FROM cum WHERE aid IS NOT NULL GROUP BY abs(aid)
),
gpu AS (
  SELECT a.rank, NULL AS step,
    'gpu: ' || s.text AS path, 0 AS depth, sum(p.n) AS n, sum(p.ns) AS ns
  FROM ga_ops p JOIN ga a ON a.id = p.aid JOIN string s ON s.id = a.name_id
  GROUP BY 1, 2, 3 HAVING sum(p.n) > 0
  UNION ALL
  SELECT a.rank, g.step, 'gpu: ' || s.text, 0, count(*), sum(g.dur)
  FROM ga a JOIN string s ON s.id = a.name_id
  JOIN hta_gpu_op g ON g.run_id = :run AND g.rank = a.rank
    AND g.device = a.pid AND g.stream = a.tid
    AND g.ts >= a.ts AND g.ts < a.ts + a.dur
  WHERE :by_step = 1
  GROUP BY 1, 2, 3
),
arows AS (
  SELECT rank, step, path, depth, n, ns, self_n, self_ns FROM incl
  UNION ALL
  SELECT rank, step, path, depth, n, ns, n, ns FROM gpu
)
SELECT i.rank, i.step, i.path, i.depth, i.n AS ops,
  round(i.ns / 1e6, 3) AS gpu_ms,
  i.self_n AS self_ops, round(i.self_ns / 1e6, 3) AS self_gpu_ms,
  round(100.0 * i.ns / max(tot.ns, 1), 2) AS gpu_pct
FROM arows i JOIN tot ON tot.rank = i.rank
ORDER BY i.rank, i.step, i.ns DESC, i.path
LIMIT :limit;
