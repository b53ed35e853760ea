-- name: aten-op-kernels
-- description: HTA's ATen op kernels and delays (get_aten_op_kernels_and_delay):
-- description: per ATen operator and the sequence of GPU ops one call of it
-- description: launched, how many calls launched that sequence, the mean
-- description: delay from the op's start to its first launch call (op delay)
-- description: and from that call's start to its GPU op's start (runtime
-- description: delay).  A launch belongs to the innermost aten:: op that
-- description: wraps its whole call on the call's thread (runtime_call.op_id,
-- description: then up the parents, as HTA's deepest wrapping op; other ops
-- description: in between are skipped); launches under no aten:: op are left
-- description: out.  Kernels, memcpy and memset count.
-- param: rank:rank =           only this rank (empty: all ranks)
-- param: limit:int>=0 = 25      rows to show, most calls first
-- column: rank             rank
-- column: op               ATen operator
-- column: kernels          the GPU ops one call launched, in launch order, ' -> ' between
-- column: calls            op calls that launched exactly this sequence
-- column: op_delay_us      mean op start -> first launch call start, us
-- column: runtime_delay_us  mean first launch call start -> its GPU op start, us
-- column: gpu_ms           summed duration of those GPU ops, ms
WITH RECURSIVE
g AS (
  SELECT runtime_id, id, ts, dur, name_id FROM kernel
  WHERE run_id = :run AND runtime_id IS NOT NULL
    AND (:rank IS NULL OR rank = :rank)
  UNION ALL
  SELECT runtime_id, id, ts, dur, name_id FROM gpu_mem_op
  WHERE run_id = :run AND runtime_id IS NOT NULL
    AND (:rank IS NULL OR rank = :rank)
),
l AS MATERIALIZED (           -- launch calls with an op around them
  SELECT r.id, r.rank, r.ts, r.ts + r.dur AS te, r.op_id FROM runtime_call r
  WHERE r.id IN (SELECT runtime_id FROM g) AND r.op_id IS NOT NULL
),
aten AS MATERIALIZED (
  SELECT id FROM string WHERE text GLOB 'aten::*'
    AND id IN (SELECT name_id FROM cpu_op      -- by the run's rowid range
               WHERE id BETWEEN (SELECT lo FROM run_rowid_range
                                 WHERE run_id = :run AND tbl = 'cpu_op')
                 AND (SELECT hi FROM run_rowid_range
                      WHERE run_id = :run AND tbl = 'cpu_op')
                 AND run_id = :run)
),
up(lid, te, op_id, name_id, parent_id, ok) AS (  -- up from the innermost op
  SELECT l.id, l.te, o.id, o.name_id, o.parent_id,
    o.name_id IN aten AND o.ts + o.dur >= l.te
  FROM l JOIN cpu_op o ON o.id = l.op_id
  UNION ALL
  SELECT up.lid, up.te, o.id, o.name_id, o.parent_id,
    o.name_id IN aten AND o.ts + o.dur >= up.te
  FROM up JOIN cpu_op o ON o.id = up.parent_id
  WHERE NOT up.ok
),
la AS MATERIALIZED (          -- each launch with its ATen op
  SELECT up.lid, up.op_id FROM up WHERE up.ok
),
lk AS MATERIALIZED (          -- each launched GPU op, in launch order
  SELECT la.op_id, l.rank, g.dur, g.name_id,
    row_number() OVER w AS k,
    first_value(l.ts) OVER w AS first_lts,
    first_value(g.ts) OVER w AS first_gts
  FROM la JOIN l ON l.id = la.lid JOIN g ON g.runtime_id = la.lid
  WINDOW w AS (PARTITION BY la.op_id ORDER BY l.ts, g.ts, g.id)
),
c AS (                        -- per op call: its sequence and first delays
  SELECT op_id, rank, group_concat(name, ' -> ') AS kernels, sum(dur) AS dur,
    min(first_lts) AS first_lts, min(first_gts) AS first_gts
  FROM (SELECT lk.*, s.text AS name FROM lk JOIN string s ON s.id = lk.name_id
        ORDER BY lk.op_id, lk.k)
  GROUP BY op_id, rank
)
SELECT c.rank, s.text AS op, c.kernels, count(*) AS calls,
  round(avg(c.first_lts - o.ts) / 1e3, 3) AS op_delay_us,
  round(avg(c.first_gts - c.first_lts) / 1e3, 3) AS runtime_delay_us,
  round(sum(c.dur) / 1e6, 3) AS gpu_ms
FROM c JOIN cpu_op o ON o.id = c.op_id JOIN string s ON s.id = o.name_id
GROUP BY c.rank, s.text, c.kernels
ORDER BY count(*) DESC, sum(c.dur) DESC, c.rank, s.text, c.kernels
LIMIT :limit;
