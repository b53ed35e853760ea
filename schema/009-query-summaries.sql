-- 009-query-summaries.sql — per-run summary tables behind the operator,
-- launch, FLOP and per-step named queries (operators, launch-overhead,
-- tflops, checkpoint-recompute, steps, diff-ops), so that they read a few
-- hundred rows instead of every CPU op and runtime call of a run.
--
-- Filled at the end of each trace ingest (src/trace/derive_summary.c, one pass
-- over the run's rows) and, for runs ingested before this file existed,
-- by the INSERT ... SELECT statements at the end of this file: the same
-- totals as a GROUP BY over the raw tables.  Deleting a run deletes its
-- rows here too.  Usable from the stock sqlite3 shell, e.g.
--   SELECT s.text, sum(calls), sum(self_ns) / 1e6 FROM cpu_op_summary c
--   JOIN string s ON s.id = c.name_id WHERE run_id = 1 GROUP BY 1;

-- CPU operators per run, rank, name and caller (the name of the enclosing
-- operator, 0 for top-level ops).  gpu_*: kernels, memcpys and memsets
-- whose launching op (op_id) is one of these calls.
CREATE TABLE cpu_op_summary(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  name_id INTEGER NOT NULL,        -- string.id of the op name
  parent_name_id INTEGER NOT NULL, -- string.id of the parent op's name, or 0
  calls INTEGER NOT NULL,
  total_ns INTEGER NOT NULL,       -- sum of dur
  self_ns INTEGER NOT NULL,        -- sum of coalesce(self_dur, dur)
  gpu_n INTEGER NOT NULL,          -- GPU records launched directly
  gpu_ns INTEGER NOT NULL,         -- their total duration
  PRIMARY KEY(run_id, rank, name_id, parent_name_id)
) WITHOUT ROWID;

-- Input shapes per operator name: calls per input_dims text.
CREATE TABLE cpu_op_shape_summary(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  name_id INTEGER NOT NULL,
  input_dims_id INTEGER NOT NULL,  -- string.id of the input dims JSON
  calls INTEGER NOT NULL,
  PRIMARY KEY(run_id, rank, name_id, input_dims_id)
) WITHOUT ROWID;

-- Operators with a FLOP count (cpu_op.flops), per name and flops_source.
-- kernel_*: the calls that launched at least one kernel (not memcpy or
-- memset), their FLOPs and the total time of those kernels.
CREATE TABLE cpu_op_flops_summary(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  name_id INTEGER NOT NULL,
  flops_source TEXT,               -- 'arg' or 'estimate'
  calls INTEGER NOT NULL,
  flops REAL NOT NULL,
  kernel_calls INTEGER NOT NULL,
  kernel_flops REAL NOT NULL,
  kernel_ns INTEGER NOT NULL
);
CREATE INDEX cpu_op_flops_summary_run ON cpu_op_flops_summary(run_id, rank);

-- CUDA runtime/driver calls per run, rank, name and kind, with the GPU
-- records (kernel, memcpy, memset) they launched (runtime_id): the launch
-- delay is the record's start minus the call's start.  recompute_*:
-- kernels launched under a checkpoint/recompute op (in_recompute = 1).
CREATE TABLE runtime_summary(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  name_id INTEGER NOT NULL,
  kind TEXT NOT NULL,              -- 'runtime' or 'driver'
  calls INTEGER NOT NULL,
  total_ns INTEGER NOT NULL,
  max_ns INTEGER NOT NULL,
  launches INTEGER NOT NULL,       -- GPU records launched
  delay_ns INTEGER NOT NULL,       -- sum of their launch delays
  max_delay_ns INTEGER,            -- NULL without launches
  short_launches INTEGER NOT NULL, -- launched records shorter than 10 µs
  recompute_kernels INTEGER NOT NULL,
  recompute_kernel_ns INTEGER NOT NULL,
  PRIMARY KEY(run_id, rank, name_id, kind)
) WITHOUT ROWID;

-- Kernels per run, rank and step (kernel.step; kernels outside every step
-- are left out).
CREATE TABLE step_kernel_summary(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  step INTEGER NOT NULL,
  kernels INTEGER NOT NULL,
  kernel_ns INTEGER NOT NULL,
  PRIMARY KEY(run_id, rank, step)
) WITHOUT ROWID;

-- run_metric as in 008, same columns and values, two arms rewritten:
--  - the kernel category of each name is computed once per name
--    (MATERIALIZED) instead of once per gpu_op_summary row: 0.45 s ->
--    0.02 s for one metric over 1,000 runs;
--  - alloc_churn_bytes reaches alloc_event through snapshot, so that a
--    filter on run_id uses the snapshot index and alloc_event's key
--    (snapshot_id, idx) instead of reading every alloc_event row.
DROP VIEW run_metric;
CREATE VIEW run_metric AS
WITH
ranked AS (
  SELECT run_id, dur,
    row_number() OVER (PARTITION BY run_id ORDER BY dur) AS i,
    count(*) OVER (PARTITION BY run_id) AS n
  FROM step
),
nstep AS (
  SELECT run_id, count(*) AS n FROM step GROUP BY run_id
),
kname AS (
  SELECT run_id, name_id, sum(total_ns) AS ns
  FROM gpu_op_summary WHERE kind = 'kernel' GROUP BY run_id, name_id
),
kc AS MATERIALIZED (
  SELECT name_id, scheme, category FROM kernel_category
),
cat AS (
  SELECT g.run_id, c.scheme, c.category, sum(g.total_ns) AS ns
  FROM gpu_op_summary g JOIN kc c ON c.name_id = g.name_id
  GROUP BY g.run_id, c.scheme, c.category
),
gtot AS (
  SELECT run_id, sum(total_ns) AS ns FROM gpu_op_summary GROUP BY run_id
)
SELECT run_id, 'step_time_median_ms' AS metric, avg(dur) / 1e6 AS value
  FROM ranked WHERE i IN ((n + 1) / 2, (n + 2) / 2) GROUP BY run_id
UNION ALL
SELECT run_id, 'step_time_p90_ms', dur / 1e6
  FROM ranked WHERE i = (9 * n + 9) / 10
UNION ALL
SELECT run_id, 'step_time_mean_ms', avg(dur) / 1e6 FROM step GROUP BY run_id
UNION ALL
SELECT run_id, 'steps', n FROM nstep
UNION ALL
SELECT run_id, 'gpu_util_pct',
    100.0 * sum(busy_ns) / max(sum(last_end - first_ts), 1)
  FROM gpu_busy GROUP BY run_id
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
  FROM comm_overlap GROUP BY run_id HAVING sum(n_comm) > 0
UNION ALL
SELECT run_id, 'comm_overlap_pct',
    100.0 * sum(overlap_ns) / max(sum(comm_ns), 1)
  FROM comm_overlap GROUP BY run_id HAVING sum(n_comm) > 0
UNION ALL
SELECT o.run_id, 'exposed_comm_ms',
    sum(o.comm_ns - o.overlap_ns) / 1e6 / coalesce(max(s.n), 1)
  FROM comm_overlap o LEFT JOIN nstep s ON s.run_id = o.run_id
  GROUP BY o.run_id HAVING sum(o.n_comm) > 0
UNION ALL
SELECT run_id, 'peak_allocated_bytes', max(peak_allocated_bytes)
  FROM snapshot GROUP BY run_id
UNION ALL
SELECT run_id, 'reserved_bytes', max(reserved_bytes)
  FROM snapshot GROUP BY run_id
UNION ALL
SELECT run_id, 'max_reserved_bytes',
    max(coalesce(max_reserved_bytes, reserved_bytes))
  FROM snapshot GROUP BY run_id
UNION ALL
SELECT run_id, 'fragmentation_pct',
    100.0 * sum(inactive_bytes) / max(sum(reserved_bytes), 1)
  FROM snapshot GROUP BY run_id
UNION ALL
SELECT sn.run_id, 'alloc_churn_bytes',
    1.0 * sum(a.size) / coalesce((SELECT n FROM nstep s
                                  WHERE s.run_id = sn.run_id), 1)
  FROM snapshot sn JOIN alloc_event a ON a.snapshot_id = sn.id
  WHERE a.action = 'alloc' GROUP BY sn.run_id;

-- Runs ingested before this file: the same totals from the raw tables.
INSERT INTO cpu_op_summary
SELECT o.run_id, o.rank, o.name_id, coalesce(p.name_id, 0), count(*),
  sum(o.dur), sum(coalesce(o.self_dur, o.dur)),
  coalesce(sum(g.n), 0), coalesce(sum(g.ns), 0)
FROM cpu_op o
LEFT JOIN cpu_op p ON p.id = o.parent_id
LEFT JOIN (SELECT op_id, count(*) AS n, sum(dur) AS ns FROM (
             SELECT op_id, dur FROM kernel WHERE op_id IS NOT NULL
             UNION ALL
             SELECT op_id, dur FROM gpu_mem_op WHERE op_id IS NOT NULL)
           GROUP BY op_id) g ON g.op_id = o.id
GROUP BY o.run_id, o.rank, o.name_id, coalesce(p.name_id, 0);

INSERT INTO cpu_op_shape_summary
SELECT run_id, rank, name_id, input_dims_id, count(*) FROM cpu_op
WHERE input_dims_id IS NOT NULL
GROUP BY run_id, rank, name_id, input_dims_id;

INSERT INTO cpu_op_flops_summary
SELECT o.run_id, o.rank, o.name_id, o.flops_source, count(*), sum(o.flops),
  count(k.op_id), coalesce(sum(CASE WHEN k.op_id IS NOT NULL THEN o.flops END), 0),
  coalesce(sum(k.ns), 0)
FROM cpu_op o
LEFT JOIN (SELECT op_id, sum(dur) AS ns FROM kernel WHERE op_id IS NOT NULL
           GROUP BY op_id) k ON k.op_id = o.id
WHERE o.flops IS NOT NULL
GROUP BY o.run_id, o.rank, o.name_id, o.flops_source;

INSERT INTO runtime_summary
SELECT r.run_id, r.rank, r.name_id, r.kind, count(*), sum(r.dur), max(r.dur),
  coalesce(sum(l.n), 0), coalesce(sum(l.delay), 0), max(l.max_delay),
  coalesce(sum(l.n_short), 0),
  coalesce(sum(CASE WHEN r.in_recompute = 1 THEN l.k_n END), 0),
  coalesce(sum(CASE WHEN r.in_recompute = 1 THEN l.k_ns END), 0)
FROM runtime_call r
LEFT JOIN (SELECT x.runtime_id AS id, count(*) AS n,
             sum(x.ts - c.ts) AS delay, max(x.ts - c.ts) AS max_delay,
             sum(x.dur < 10000) AS n_short, sum(x.is_k) AS k_n,
             sum(x.is_k * x.dur) AS k_ns
           FROM (SELECT runtime_id, ts, dur, 1 AS is_k FROM kernel
                 WHERE runtime_id IS NOT NULL
                 UNION ALL
                 SELECT runtime_id, ts, dur, 0 FROM gpu_mem_op
                 WHERE runtime_id IS NOT NULL) x
           JOIN runtime_call c ON c.id = x.runtime_id
           GROUP BY x.runtime_id) l ON l.id = r.id
GROUP BY r.run_id, r.rank, r.name_id, r.kind;

INSERT INTO step_kernel_summary
SELECT run_id, rank, step, count(*), sum(dur) FROM kernel
WHERE step IS NOT NULL
GROUP BY run_id, rank, step;
