-- 093-step-comm.sql — exposed communication per step counts the
-- communication inside the steps only (issue 31): on
-- tracelens-mi300-resnet-ckpt the report's "exposed comm ms per step"
-- was 18.5 ms against a 15.95 ms step, because it divided all exposed
-- communication of the trace (before the first step, after the last, in
-- no step at all) by the number of steps.
--
-- step_comm holds, per (run, rank, step), the communication kernel time
-- (the union over the rank's devices) and its exposed part (no compute
-- kernel running on the same device), clipped to the step's window: the
-- step time that bounds its work (step.bound_ts / bound_dur, 040; the
-- ProfilerStep range, or the gap step, where it has none).  So each
-- row's comm_ns and exposed_ns are at most the step time.  Computed in C
-- at ingest, merge and rebuild (src/analysis/derive_step_comm.c, after
-- the step bounds).  run_metric's exposed_comm_ms is now the mean of
-- exposed_ns over the steady steps (the steps step_time_mean_ms is the
-- mean of, so it is at most that); the report's summary row, the
-- exposed-comm finding's per-step figure and the gate read it.
--
-- Runs ingested before this file keep their stored exposed_comm_ms (no
-- step_comm rows: the kernels' intervals are not read back here);
-- `profan rebuild` computes both again.
CREATE TABLE step_comm(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  step INTEGER NOT NULL,
  comm_ns INTEGER NOT NULL,        -- communication kernels in the step
  exposed_ns INTEGER NOT NULL,     -- of it, with no compute kernel running
  PRIMARY KEY(run_id, rank, step)
) WITHOUT ROWID;

INSERT INTO table_role(name, role, input_kind, summary, description) VALUES
  ('step_comm', 'derived_run', NULL, 0,
   'communication and exposed communication inside each step''s window');

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
SELECT s.run_id, 'exposed_comm_ms', avg(c.exposed_ns) / 1e6
  FROM steady s JOIN step_comm c ON c.run_id = s.run_id
    AND c.rank = s.rank AND c.step = s.step
  WHERE s.run_id IN (SELECT run_id FROM co GROUP BY run_id
                     HAVING sum(n_comm) > 0)
  GROUP BY s.run_id
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
