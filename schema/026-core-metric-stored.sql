-- 026-core-metric-stored.sql — the core per-run metrics (steps, step
-- times, GPU use, categories, communication, memory) are computed once
-- per run at ingest and stored, so run_metric reads three tables.
--
-- run_metric_core (011) computed every run's metrics whenever anything
-- read run_metric: an outer filter on run_id or metric does not reach
-- into its window functions and GROUP BYs, so `profan trend METRIC`
-- over 1,000 runs took 2.7 s, `check` 8.9 s, and trend over 10,000 runs
-- 88 s (issue 19 asks for under 1 s over 100,000).  Here:
--   run_metric_core_calc  the definition of the core metrics (011's
--                         run_metric_core, unchanged) computed for the
--                         runs of core_target only
--   core_run_metric       its rows, stored per run by derive_core.c (in
--                         the ingest transaction and after profan merge)
--   run_metric_core       reads core_run_metric
--   run_metric            core_run_metric, hta_run_metric and
--                         op_run_metric, nothing computed
-- Runs ingested before this file are backfilled at the end.

-- The runs run_metric_core_calc computes (derive_core.c puts one run
-- here and empties it again; the backfill puts every run).
CREATE TABLE core_target(run_id INTEGER PRIMARY KEY);

-- `value` has no declared type on purpose: the view's values keep
-- their type (the step counts stay integers, REAL would print 8.0).
CREATE TABLE core_run_metric(
  run_id INTEGER NOT NULL,
  metric TEXT NOT NULL,
  value
);
CREATE INDEX core_run_metric_run ON core_run_metric(run_id, metric);
CREATE INDEX core_run_metric_metric ON core_run_metric(metric, run_id);

-- trend reads one metric over every run: the other stored arms get the
-- same (metric, run_id) index.
CREATE INDEX hta_run_metric_metric ON hta_run_metric(metric, run_id);
CREATE INDEX op_run_metric_metric ON op_run_metric(metric, run_id);

-- The core metrics of the runs of core_target (the definition of 011's
-- run_metric_core, each source restricted to those runs; steady steps
-- per rank counted by a join, not a correlated subquery, which read
-- every run's steady steps once per rank: 48 s backfilling 10,000 runs):
-- step_time_* over the steady steps, `steps` the step count per rank
-- (the largest over the ranks, not a sum over ranks), `steady_steps`
-- the steady ones per rank, `step_gpu_busy_pct` (GPU busy share of the
-- steady steps' wall time), gpu_util_pct, gpu_ms and top_kernel_ms per
-- step, the kernel categories' shares, comm and exposed comm, memory.
-- The per-step divisors of gpu_ms, top_kernel_ms, exposed_comm_ms and
-- alloc_churn_bytes stay every (rank, step) row: their totals cover the
-- whole trace.
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
    100.0 * sum(inactive_bytes) / max(sum(reserved_bytes), 1)
  FROM sn GROUP BY run_id
UNION ALL
SELECT s.run_id, 'alloc_churn_bytes',
    1.0 * sum(a.size) / coalesce((SELECT n FROM nstep x
                                  WHERE x.run_id = s.run_id), 1)
  FROM sn s JOIN alloc_event a ON a.snapshot_id = s.id
  WHERE a.action = 'alloc' GROUP BY s.run_id;

-- step_steady (011) with the same columns, rules and values, written as
-- nested subqueries whose window functions all partition by (run_id,
-- rank) instead of CTEs read twice (s, d, t): SQLite materialised those
-- for every run of the database before applying a filter, so
-- `... FROM step_steady WHERE run_id = ?` (check's per-step samples, the
-- core metrics of one run at ingest) took 0.7 s over 10,000 runs.  Here
-- a filter on run_id (and rank) reaches the step table.  A filter that
-- holds a subquery is never pushed into window functions, so while
-- core_target holds runs (derive_core.c, for one statement) the view
-- reads only their steps; it is empty otherwise: every run.
DROP VIEW step_steady;
CREATE VIEW step_steady AS
SELECT run_id, rank, step, ts, dur, source,
  k AS pos,                        -- 1 = the rank's first step in time
  n,                               -- steps of the rank
  median AS median_ns,             -- the rank's median step (all steps)
  dev_pct,                         -- |dur - median| / median, %
  tol_pct,                         -- the rank's tolerance, %
  reason = '' AS steady,           -- 1 steady, 0 warm-up or cut
  reason                           -- '', 'warm-up' or 'cut'
FROM (
  SELECT *,
    CASE WHEN few THEN ''
         WHEN k < coalesce(k0, 1) AND k <= (n - 1) / 2 THEN 'warm-up'
         WHEN k = n AND dev_pct > tol_pct THEN 'cut'
         ELSE '' END AS reason
  FROM (
    SELECT *,
      min(CASE WHEN dev_pct <= tol_pct THEN k END)
        OVER (PARTITION BY run_id, rank) AS k0
    FROM (
      SELECT *,
        100.0 * ad / max(median, 1) AS dev_pct,
        max((SELECT value FROM steady_param WHERE name = 'tolerance_pct'),
            (SELECT value FROM steady_param WHERE name = 'mad_k')
              * 1.4826 * 100.0 * mad / max(median, 1)) AS tol_pct,
        n < (SELECT value FROM steady_param WHERE name = 'min_steps') AS few
      FROM (
        SELECT *,
          avg(CASE WHEN j IN ((n + 1) / 2, (n + 2) / 2) THEN ad END)
            OVER (PARTITION BY run_id, rank) AS mad
        FROM (
          SELECT *, abs(dur - median) AS ad,
            row_number() OVER (PARTITION BY run_id, rank
                               ORDER BY abs(dur - median), ts) AS j
          FROM (
            SELECT *,
              avg(CASE WHEN i IN ((n + 1) / 2, (n + 2) / 2) THEN dur END)
                OVER (PARTITION BY run_id, rank) AS median
            FROM (
              SELECT run_id, rank, step, ts, dur, source,
                row_number() OVER (PARTITION BY run_id, rank
                                   ORDER BY ts, step) AS k,
                row_number() OVER (PARTITION BY run_id, rank
                                   ORDER BY dur, ts) AS i,
                count(*) OVER (PARTITION BY run_id, rank) AS n
              FROM step
              WHERE NOT EXISTS (SELECT 1 FROM core_target)
                 OR run_id IN (SELECT run_id FROM core_target))))))));

-- run_step_sample (011) with the same rows, its aggregates written as
-- window functions over (run_id, step) and (run_id, rank, step) in
-- nested subqueries (SELECT DISTINCT), and no window function in an arm
-- of the UNION itself: SQLite pushes a filter on run_id neither through
-- a GROUP BY into a view with window functions nor into a compound
-- whose arms have window functions, so `check` (run_id = ? AND metric
-- = ?) computed every run's samples: 0.7 s a call over 10,000 runs.
DROP VIEW run_step_sample;
CREATE VIEW run_step_sample AS
WITH
names AS (
  SELECT 'step_time_median_ms' AS metric
  UNION ALL SELECT 'step_time_p90_ms'
  UNION ALL SELECT 'step_time_mean_ms'
)
SELECT st.run_id, names.metric, st.step, st.ms AS value
FROM (
  SELECT DISTINCT run_id, step,
    avg(dur) OVER (PARTITION BY run_id, step) / 1e6 AS ms
  FROM step_steady WHERE steady = 1
) st CROSS JOIN names
UNION ALL
SELECT run_id, 'step_gpu_busy_pct', step, value
FROM (
  SELECT DISTINCT run_id, step,
    avg(pct) OVER (PARTITION BY run_id, step) AS value
  FROM (
    SELECT DISTINCT s.run_id, s.rank, s.step,
      100.0 * sum(CASE WHEN t.class IN ('kernel', 'memcpy', 'memset',
                                        'comm')
                       THEN t.ns ELSE 0 END)
                OVER (PARTITION BY s.run_id, s.rank, s.step)
        / max(sum(t.ns) OVER (PARTITION BY s.run_id, s.rank, s.step), 1)
        AS pct
    FROM step_time t
    JOIN step_steady s ON s.run_id = t.run_id AND s.rank = t.rank
      AND s.step = t.step AND s.steady = 1));

-- Runs ingested before this file.
INSERT INTO core_target SELECT id FROM run;
INSERT INTO core_run_metric SELECT * FROM run_metric_core_calc;
DELETE FROM core_target;

DROP VIEW run_metric_core;
CREATE VIEW run_metric_core AS
SELECT run_id, metric, value FROM core_run_metric;

-- run_metric (020, 022): every per-run metric, read from the three
-- stored tables (hta_metric and op_metric read the same tables).
DROP VIEW IF EXISTS run_metric;
CREATE VIEW run_metric AS
SELECT run_id, metric, value FROM core_run_metric
UNION ALL
SELECT run_id, metric, value FROM hta_run_metric
UNION ALL
SELECT run_id, metric, value FROM op_run_metric;
