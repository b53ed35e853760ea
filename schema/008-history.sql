-- 008-history.sql — named baselines, per-run metrics and their direction
-- (comparison and history: `profan tag`, `baseline`, `diff`, `trend`,
-- `check`).
--
-- `baseline` is the only table written by these commands; `run_metric` is
-- a view over the derived tables, so it needs no migration of old runs and
-- works in the stock sqlite3 shell:
--   sqlite3 profan.db "SELECT * FROM run_metric WHERE metric = 'steps'"
--
-- "Per step" below always means per (rank, step) row of `step`, the same
-- divisor top-kernels uses for per_step_ms.

-- Named baselines: `profan baseline set main 42`.  Deleting the run
-- deletes its baselines (runref_delete walks every run_id column).
CREATE TABLE baseline(
  name TEXT PRIMARY KEY,           -- user-chosen name ("main", "release")
  run_id INTEGER NOT NULL,         -- the run it names
  set_at TEXT NOT NULL             -- ISO-8601 UTC time it was set
);

-- Which way a metric gets worse, for `profan check`: 1 higher is worse,
-- -1 lower is worse, 0 either way.  Metrics not listed (and not matched
-- by a pattern, lowest priority first) are 1.  Data: add your own rows.
CREATE TABLE metric_direction(
  pattern TEXT PRIMARY KEY,        -- GLOB pattern over run_metric.metric
  priority INTEGER NOT NULL,       -- lowest matching priority wins
  direction INTEGER NOT NULL       -- 1, -1 or 0
);
INSERT INTO metric_direction VALUES
  ('gpu_util_pct', 10, -1),
  ('steps', 20, 0),
  ('cat_*', 30, 0),
  ('comm_overlap_pct', 40, -1);

-- One row per run and metric: value is a plain number.
--   step_time_median_ms, step_time_p90_ms, step_time_mean_ms  step wall time
--   steps                     (rank, step) rows
--   gpu_util_pct              busy union / active window, all devices
--   gpu_ms                    GPU activity time per step
--   top_kernel_ms             the largest single kernel name, per step
--   cat_SCHEME:CATEGORY_pct   share of GPU activity time per category
--   comm_pct                  communication kernel time / |comm ∪ comp|
--   comm_overlap_pct          share of comm time overlapped by compute
--   exposed_comm_ms           comm time not overlapped, per step
--   peak_allocated_bytes, reserved_bytes, max_reserved_bytes,
--   fragmentation_pct         memory snapshots (max over devices;
--                             fragmentation = inactive / reserved)
--   alloc_churn_bytes         bytes allocated per step (snapshot traces)
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
cat AS (
  SELECT g.run_id, c.scheme, c.category, sum(g.total_ns) AS ns
  FROM gpu_op_summary g JOIN kernel_category c ON c.name_id = g.name_id
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
SELECT a.run_id, 'alloc_churn_bytes',
    1.0 * sum(a.size) / coalesce((SELECT n FROM nstep s
                                  WHERE s.run_id = a.run_id), 1)
  FROM alloc_event a WHERE a.action = 'alloc' GROUP BY a.run_id;
