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
aten AS MATERIALIZED (        -- the ops' names are the run's: no run filter
  SELECT id FROM string WHERE text GLOB 'aten::*'
),
-- each GPU op (kernels, then memcpy and memset) with its launch call and
-- the innermost op of that call (ok: an aten:: op wrapping the whole
-- call); one arm a table (a UNION ALL of the two joined would be copied
-- first)
gl AS MATERIALIZED (
  SELECT g.id AS gid, g.ts AS gts, g.dur, g.name_id, r.rank, r.ts AS lts,
    r.ts + r.dur AS te, o.id AS op_id, o.ts AS op_ts, o.name_id AS op_name,
    o.parent_id, o.name_id IN aten AND o.ts + o.dur >= r.ts + r.dur AS ok
  FROM kernel g JOIN runtime_call r ON r.id = g.runtime_id
  JOIN cpu_op o ON o.id = r.op_id
  WHERE g.run_id = :run AND g.runtime_id IS NOT NULL
    AND (:rank IS NULL OR g.rank = :rank) AND r.op_id IS NOT NULL
  UNION ALL
  SELECT g.id, g.ts, g.dur, g.name_id, r.rank, r.ts, r.ts + r.dur, o.id,
    o.ts, o.name_id, o.parent_id,
    o.name_id IN aten AND o.ts + o.dur >= r.ts + r.dur
  FROM gpu_mem_op g JOIN runtime_call r ON r.id = g.runtime_id
  JOIN cpu_op o ON o.id = r.op_id
  WHERE g.run_id = :run AND g.runtime_id IS NOT NULL
    AND (:rank IS NULL OR g.rank = :rank) AND r.op_id IS NOT NULL
),
-- up from there for the GPU ops whose innermost op is not it, each GPU op
-- carried along (a second join of the launches with their GPU ops cost
-- more); most stop at the innermost op and do not enter the recursion
up(gid, gts, dur, name_id, rank, lts, te, op_id, op_ts, op_name, parent_id,
   ok) AS (
  SELECT gl.gid, gl.gts, gl.dur, gl.name_id, gl.rank, gl.lts, gl.te, o.id,
    o.ts, o.name_id, o.parent_id,
    o.name_id IN aten AND o.ts + o.dur >= gl.te
  FROM gl JOIN cpu_op o ON o.id = gl.parent_id
  WHERE NOT gl.ok
  UNION ALL
  SELECT up.gid, up.gts, up.dur, up.name_id, up.rank, up.lts, up.te, o.id,
    o.ts, o.name_id, o.parent_id,
    o.name_id IN aten AND o.ts + o.dur >= up.te
  FROM up JOIN cpu_op o ON o.id = up.parent_id
  WHERE NOT up.ok
),
-- each GPU op under its ATen op
w AS (
  SELECT op_id, rank, op_ts, op_name, dur, name_id, lts, gts, gid
  FROM gl WHERE ok
  UNION ALL
  SELECT op_id, rank, op_ts, op_name, dur, name_id, lts, gts, gid
  FROM up WHERE ok
),
-- per op call (op_id: its ATen op): its GPU ops' names (as string ids)
-- in launch order (launch call start, GPU op start, row id), and the
-- first of them: the first row of that order holds the least (launch
-- start, GPU start) pair, and min() over lts takes the other columns from
-- the first row of the least lts.  Ids, not names: the sort and the
-- grouping below move short keys; the names are read for the rows shown
c AS (
  SELECT op_id, rank, op_ts, op_name, group_concat(name_id) AS seq,
    sum(dur) AS dur, min(lts) AS first_lts, gts AS first_gts
  FROM (SELECT op_id, rank, op_ts, op_name, dur, name_id, lts, gts
        FROM w ORDER BY op_id, lts, gts, gid)
  GROUP BY op_id, rank
),
-- per (rank, ATen op, sequence); the op's and the GPU ops' names
-- (interned: one id a text) read for these rows only
r AS (
  SELECT rank, op_name, seq, count(*) AS calls,
    round(avg(first_lts - op_ts) / 1e3, 3) AS op_delay_us,
    round(avg(first_gts - first_lts) / 1e3, 3) AS runtime_delay_us,
    sum(dur) AS dur
  FROM c GROUP BY rank, op_name, seq
),
rk AS (
  SELECT r.*, (SELECT group_concat(text, ' -> ')
               FROM (SELECT s.text FROM json_each('[' || r.seq || ']') j
                     JOIN string s ON s.id = j.value ORDER BY j.key))
      AS kernels
  FROM r
)
SELECT r.rank, s.text AS op, r.kernels, r.calls, r.op_delay_us,
  r.runtime_delay_us, round(r.dur / 1e6, 3) AS gpu_ms
FROM rk r JOIN string s ON s.id = r.op_name
ORDER BY r.calls DESC, r.dur DESC, r.rank, s.text, r.kernels
LIMIT :limit;
