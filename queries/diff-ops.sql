-- name: diff-ops
-- description: Per CPU operator (cpu_op by name) in a baseline run
-- description: (:baseline) and this run (:run): calls, self CPU time per
-- description: step and GPU time per step of the kernels, memcpys and
-- description: memsets it launched directly (per call the union of their
-- description: intervals: overlapping kernels count once), with deltas
-- description: and speedups;
-- description: rows under the noise floor in both runs are folded into one
-- description: "(other)" row.  `profan diff A B --by op`.
-- param: baseline:run! =      the baseline run id (profan diff binds it)
-- param: floor_pct:number>=0 = 0.3  fold rows below this % of step time in both runs
-- param: limit:int>=0 = 50      rows to show (before the "(other)" row)
-- column: name           operator name, or "(other: N)" for the folded row
-- column: status         new (only in :run), vanished, changed, folded
-- column: a_calls        calls in the baseline (all steps and ranks)
-- column: b_calls        calls in this run
-- column: a_self_ms      baseline self CPU time per step, ms
-- column: b_self_ms      this run's self CPU time per step, ms
-- column: delta_self_ms  b_self_ms - a_self_ms
-- column: self_speedup   a_self_ms / b_self_ms (above 1: faster in :run)
-- column: a_gpu_ms       baseline GPU time of its launches per step, ms
-- column: b_gpu_ms       this run's GPU time of its launches per step, ms
-- column: delta_gpu_ms   b_gpu_ms - a_gpu_ms
-- column: delta_gpu_pct  change relative to a_gpu_ms, %
-- column: gpu_speedup    a_gpu_ms / b_gpu_ms (above 1: faster in :run)
WITH
sa AS (SELECT max(count(*), 1) AS n, avg(dur) AS dur FROM step
       WHERE run_id = :baseline),
sb AS (SELECT max(count(*), 1) AS n, avg(dur) AS dur FROM step
       WHERE run_id = :run),
-- per-op totals from cpu_op_summary (schema 009), filled at ingest
oa AS (SELECT name_id, sum(calls) AS calls, sum(self_ns) AS self_ns
       FROM cpu_op_summary WHERE run_id = :baseline GROUP BY name_id),
ob AS (SELECT name_id, sum(calls) AS calls, sum(self_ns) AS self_ns
       FROM cpu_op_summary WHERE run_id = :run GROUP BY name_id),
-- GPU time per call: the union of what it launched (op_gpu_time, schema
-- 022): kernels that overlap count once; each run's rows are its cpu_op
-- rowid range (op_id is a cpu_op.id, schema 123)
g AS (
  SELECT t.run_id, t.name_id, sum(t.union_ns) AS ns
  FROM run_rowid_range r JOIN op_gpu_time t
    ON t.op_id BETWEEN r.lo AND r.hi AND +t.run_id = r.run_id
  WHERE r.run_id IN (:baseline, :run) AND r.tbl = 'cpu_op'
  GROUP BY t.run_id, t.name_id
),
k AS (SELECT name_id FROM oa UNION SELECT name_id FROM ob),
j AS (
  SELECT k.name_id, coalesce(oa.calls, 0) AS a_calls,
    coalesce(ob.calls, 0) AS b_calls,
    coalesce(oa.self_ns, 0) * 1.0 / sa.n AS a_self,
    coalesce(ob.self_ns, 0) * 1.0 / sb.n AS b_self,
    coalesce(ga.ns, 0) * 1.0 / sa.n AS a_gpu,
    coalesce(gb.ns, 0) * 1.0 / sb.n AS b_gpu,
    CASE WHEN oa.name_id IS NULL THEN 'new'
         WHEN ob.name_id IS NULL THEN 'vanished' ELSE 'changed' END
      AS status,
    max(coalesce(sa.dur, 0), 1) AS a_dur, max(coalesce(sb.dur, 0), 1) AS b_dur
  FROM k CROSS JOIN sa CROSS JOIN sb
  LEFT JOIN oa ON oa.name_id = k.name_id
  LEFT JOIN ob ON ob.name_id = k.name_id
  LEFT JOIN g ga ON ga.run_id = :baseline AND ga.name_id = k.name_id
  LEFT JOIN g gb ON gb.run_id = :run AND gb.name_id = k.name_id
),
f AS (
  SELECT j.*,
    (100.0 * max(a_self, a_gpu) / a_dur < :floor_pct
     AND 100.0 * max(b_self, b_gpu) / b_dur < :floor_pct) AS small
  FROM j
),
big AS (
  SELECT s.text AS name, f.status, f.a_calls, f.b_calls, f.a_self, f.b_self,
    f.a_gpu, f.b_gpu
  FROM f JOIN string s ON s.id = f.name_id
  WHERE NOT f.small
  ORDER BY max(f.a_self + f.a_gpu, f.b_self + f.b_gpu) DESC, s.text
  LIMIT :limit
),
rows AS (
  SELECT 0 AS grp, * FROM big
  UNION ALL
  SELECT 1, '(other: ' || count(*) || ')', 'folded', sum(a_calls),
    sum(b_calls), sum(a_self), sum(b_self), sum(a_gpu), sum(b_gpu)
  FROM f WHERE small HAVING count(*) > 0
)
SELECT name, status, a_calls, b_calls,
  round(a_self / 1e6, 4) AS a_self_ms,
  round(b_self / 1e6, 4) AS b_self_ms,
  round((b_self - a_self) / 1e6, 4) AS delta_self_ms,
  CASE WHEN a_self > 0 AND b_self > 0 THEN round(a_self / b_self, 3) END
    AS self_speedup,
  round(a_gpu / 1e6, 4) AS a_gpu_ms,
  round(b_gpu / 1e6, 4) AS b_gpu_ms,
  round((b_gpu - a_gpu) / 1e6, 4) AS delta_gpu_ms,
  CASE WHEN a_gpu > 0 THEN round(100.0 * (b_gpu - a_gpu) / a_gpu, 2) END
    AS delta_gpu_pct,
  CASE WHEN a_gpu > 0 AND b_gpu > 0 THEN round(a_gpu / b_gpu, 3) END
    AS gpu_speedup
FROM rows
ORDER BY grp, max(a_self + a_gpu, b_self + b_gpu) DESC, name;
