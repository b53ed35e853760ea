-- core-metrics-011.sql — the oracle of tests/e2e/test_metric_store.py:
-- step_steady, run_step_sample and run_metric_core as the development
-- migration schema/011-steady-steps.sql defined them (before the metrics
-- were stored per run), copied verbatim from it at the schema baseline.
-- The test loads them as TEMP views; profan never reads this file.

-- Every step with its position, its rank's median, deviation and verdict.
CREATE VIEW step_steady AS
WITH
p AS (
  SELECT
    (SELECT value FROM steady_param WHERE name = 'tolerance_pct') AS tol,
    (SELECT value FROM steady_param WHERE name = 'mad_k') AS mad_k,
    (SELECT value FROM steady_param WHERE name = 'min_steps') AS min_steps
),
s AS (
  SELECT run_id, rank, step, ts, dur, source,
    row_number() OVER (PARTITION BY run_id, rank ORDER BY ts, step) AS k,
    row_number() OVER (PARTITION BY run_id, rank ORDER BY dur, ts) AS i,
    count(*) OVER (PARTITION BY run_id, rank) AS n
  FROM step
),
med AS (
  SELECT run_id, rank, avg(dur) AS median FROM s
  WHERE i IN ((n + 1) / 2, (n + 2) / 2) GROUP BY run_id, rank
),
d AS (
  SELECT s.*, m.median, abs(s.dur - m.median) AS ad,
    row_number() OVER (PARTITION BY s.run_id, s.rank
                       ORDER BY abs(s.dur - m.median), s.ts) AS j
  FROM s JOIN med m ON m.run_id = s.run_id AND m.rank = s.rank
),
mad AS (
  SELECT run_id, rank, avg(ad) AS mad FROM d
  WHERE j IN ((n + 1) / 2, (n + 2) / 2) GROUP BY run_id, rank
),
t AS (
  SELECT d.*,
    100.0 * d.ad / max(d.median, 1) AS dev_pct,
    max(p.tol, p.mad_k * 1.4826 * 100.0 * x.mad / max(d.median, 1))
      AS tol_pct,
    d.n < p.min_steps AS few
  FROM d JOIN mad x ON x.run_id = d.run_id AND x.rank = d.rank
  CROSS JOIN p
),
k0 AS (
  SELECT run_id, rank, min(k) AS k0 FROM t
  WHERE dev_pct <= tol_pct GROUP BY run_id, rank
),
v AS (
  SELECT t.*,
    CASE WHEN t.few THEN ''
         WHEN t.k < coalesce(k0.k0, 1) AND t.k <= (t.n - 1) / 2
           THEN 'warm-up'
         WHEN t.k = t.n AND t.dev_pct > t.tol_pct THEN 'cut'
         ELSE '' END AS reason
  FROM t LEFT JOIN k0 ON k0.run_id = t.run_id AND k0.rank = t.rank
)
SELECT run_id, rank, step, ts, dur, source,
  k AS pos,                        -- 1 = the rank's first step in time
  n,                               -- steps of the rank
  median AS median_ns,             -- the rank's median step (all steps)
  dev_pct,                         -- |dur - median| / median, %
  tol_pct,                         -- the rank's tolerance, %
  reason = '' AS steady,           -- 1 steady, 0 warm-up or cut
  reason                           -- '', 'warm-up' or 'cut'
FROM v;

-- Per-step samples of the step metrics of run_metric, one value per
-- step number (the mean over the ranks where that step is steady): the
-- samples `profan check` compares.  A metric listed here is tested step
-- by step; other metrics only against the history of comparable runs.
CREATE VIEW run_step_sample AS
WITH
st AS (
  SELECT run_id, step, avg(dur) / 1e6 AS ms FROM step_steady
  WHERE steady = 1 GROUP BY run_id, step
),
names AS (
  SELECT 'step_time_median_ms' AS metric
  UNION ALL SELECT 'step_time_p90_ms'
  UNION ALL SELECT 'step_time_mean_ms'
),
busy AS (
  SELECT t.run_id, t.rank, t.step,
    100.0 * sum(CASE WHEN t.class IN ('kernel', 'memcpy', 'memset', 'comm')
                     THEN t.ns ELSE 0 END) / max(sum(t.ns), 1) AS pct
  FROM step_time t
  JOIN step_steady s ON s.run_id = t.run_id AND s.rank = t.rank
    AND s.step = t.step AND s.steady = 1
  GROUP BY t.run_id, t.rank, t.step
)
SELECT st.run_id, names.metric, st.step, st.ms AS value
  FROM st CROSS JOIN names
UNION ALL
SELECT run_id, 'step_gpu_busy_pct', step, avg(pct) FROM busy
  GROUP BY run_id, step;

-- run_metric as in 009 with steady steps: step_time_* over the steady
-- steps, `steps` the step count per rank (the largest over the ranks,
-- not a sum over ranks), `steady_steps` the steady ones per rank, and
-- `step_gpu_busy_pct` (GPU busy share of the steady steps' wall time).
-- The per-step divisors of gpu_ms, top_kernel_ms, exposed_comm_ms and
-- alloc_churn_bytes stay every (rank, step) row: their totals cover the
-- whole trace.
-- Named run_metric_core: run_metric itself (020) is this view and the
-- metric views of the other analyses, unioned.
DROP VIEW run_metric;
CREATE VIEW run_metric_core AS
WITH
steady AS (
  SELECT run_id, rank, step, dur FROM step_steady WHERE steady = 1
),
ranked AS (
  SELECT run_id, dur,
    row_number() OVER (PARTITION BY run_id ORDER BY dur) AS i,
    count(*) OVER (PARTITION BY run_id) AS n
  FROM steady
),
nstep AS (
  SELECT run_id, count(*) AS n FROM step GROUP BY run_id
),
perrank AS (
  SELECT run_id, max(n) AS n, max(ns) AS ns FROM (
    SELECT s.run_id, s.rank, count(*) AS n,
      (SELECT count(*) FROM steady x WHERE x.run_id = s.run_id
         AND x.rank = s.rank) AS ns
    FROM step s GROUP BY s.run_id, s.rank)
  GROUP BY run_id
),
busy AS (
  SELECT t.run_id,
    100.0 * sum(CASE WHEN t.class IN ('kernel', 'memcpy', 'memset', 'comm')
                     THEN t.ns ELSE 0 END) / max(sum(t.ns), 1) AS pct
  FROM step_time t
  JOIN steady s ON s.run_id = t.run_id AND s.rank = t.rank
    AND s.step = t.step
  GROUP BY t.run_id
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
