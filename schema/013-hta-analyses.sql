-- 013-hta-analyses.sql — the analyses users know from Holistic Trace
-- Analysis (HTA), as views over the trace tables, plus the critical path
-- per step that derive_hta.c stores at ingest.  Everything but the
-- critical path is a view, so a change to the kernel categories
-- (category_rule, scheme 'coarse': 'comm' and 'memory') or to the
-- thresholds in hta_setting applies to runs already ingested.
-- Times are ns.  README "HTA analyses" states each definition and how it
-- differs from HTA's.

-- Thresholds, stored once; the views, queries and report read them here.
CREATE TABLE hta_setting(
  name TEXT PRIMARY KEY,
  value REAL NOT NULL,
  description TEXT NOT NULL
);
INSERT INTO hta_setting VALUES
  ('kernel_wait_ns', 30000,
   'idle gap on a stream below this (ns), not waiting on the host, is kernel wait'),
  ('queue_full', 1024,
   'launch queue length at which the CPU blocks (CUDA: 1024 per stream)');

-- Critical path of every (rank, step), from derive_hta.c: walked back
-- from the step end, it is a chain of contiguous segments from the step
-- start to its end whose durations add up to step.dur.  Segment classes:
--   cpu_op    self time of the innermost CPU op running
--   runtime   a CUDA call that is neither a launch nor a sync
--   launch    a launch call, and launch call start -> GPU op start
--   sync      a synchronising call waiting after the GPU work it waited
--             for ended (or the call itself when it waited for nothing)
--   kernel, memcpy, memset   GPU op time
--   idle      no CPU event recorded on any thread (Python, the framework)
--   gpu_wait  a stream idle before its next op although that op had been
--             launched: waiting on its stream or on another stream
-- Stored twice, compactly:
--   hta_critical_path     the chain as runs on one lane: consecutive
--                         segments on the same CPU thread or GPU stream;
--   hta_critical_path_op  the chain's time per (class, name): shares by
--                         class and top contributors.
CREATE TABLE hta_critical_path(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  step INTEGER NOT NULL,
  seq INTEGER NOT NULL,            -- 0 = the run at the step start
  side TEXT NOT NULL,              -- 'cpu' or 'gpu'
  lane INTEGER,                    -- CPU tid, or GPU stream
  ts INTEGER NOT NULL,
  dur INTEGER NOT NULL,
  class TEXT NOT NULL,             -- the class with the most time in it
  name_id INTEGER,                 -- its longest single contributor
  segments INTEGER NOT NULL        -- segments merged into it
);
CREATE INDEX hta_critical_path_run ON hta_critical_path(run_id, rank, step);

CREATE TABLE hta_critical_path_op(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  step INTEGER NOT NULL,
  class TEXT NOT NULL,
  name_id INTEGER,                 -- op / call / kernel name; NULL for
                                   -- idle and gpu_wait
  ns INTEGER NOT NULL,             -- time on the path
  segments INTEGER NOT NULL
);
CREATE INDEX hta_critical_path_op_run
  ON hta_critical_path_op(run_id, rank, step);

-- Every GPU activity (kernels, memcpy, memset; not cuda_sync rows) with
-- its class: 'comm' and 'memory' from the coarse kernel categories,
-- memcpy/memset rows 'memory', every other kernel 'compute'.
CREATE VIEW hta_gpu_op AS
WITH kc AS MATERIALIZED (
  SELECT name_id, category FROM kernel_category WHERE scheme = 'coarse'
)
SELECT k.run_id, k.rank, k.device, k.stream, 'kernel' AS kind,
  k.id AS row_id, k.ts, k.dur, k.name_id, k.runtime_id, k.step,
  CASE kc.category WHEN 'comm' THEN 'comm' WHEN 'memory' THEN 'memory'
    ELSE 'compute' END AS class
FROM kernel k LEFT JOIN kc ON kc.name_id = k.name_id
UNION ALL
SELECT m.run_id, m.rank, m.device, m.stream, m.kind, m.id, m.ts, m.dur,
  m.name_id, m.runtime_id, m.step, 'memory'
FROM gpu_mem_op m;

-- Overlap pieces: the GPU active span of each (rank, device) cut at every
-- start and end, each piece labelled by which classes run in it
-- (compute = comm = memory = 0 is idle).  The pieces tile last end -
-- first start.  Filter this view by run_id directly (the named queries
-- do): SQLite pushes a run_id filter into it, not through an aggregate
-- over it, so hta_overlap_slice / hta_temporal read every run.
CREATE VIEW hta_overlap_piece AS
WITH ev AS (
  SELECT run_id, rank, device, ts AS t,
    (class = 'compute') AS dc, (class = 'comm') AS dn, (class = 'memory') AS dm
  FROM hta_gpu_op
  UNION ALL
  SELECT run_id, rank, device, ts + dur,
    -(class = 'compute'), -(class = 'comm'), -(class = 'memory')
  FROM hta_gpu_op
),
live AS (
  -- RANGE: the sums at t include every start and end at t; rows tied at
  -- t get t_next = t: zero-length pieces, left out below.
  SELECT run_id, rank, device, t,
    lead(t) OVER (PARTITION BY run_id, rank, device ORDER BY t) AS t_next,
    sum(dc) OVER w AS nc, sum(dn) OVER w AS nn, sum(dm) OVER w AS nm
  FROM ev
  WINDOW w AS (PARTITION BY run_id, rank, device ORDER BY t
               RANGE UNBOUNDED PRECEDING)
)
SELECT run_id, rank, device, t AS ts, t_next - t AS ns,
  (nc > 0) AS compute, (nn > 0) AS comm, (nm > 0) AS memory
FROM live WHERE t_next > t;

-- Overlap slices: ns per combination of classes per (rank, device).
CREATE VIEW hta_overlap_slice AS
SELECT run_id, rank, device, compute, comm, memory,
  sum(ns) AS ns, count(*) AS pieces
FROM hta_overlap_piece
GROUP BY run_id, rank, device, compute, comm, memory;

-- Temporal breakdown per (rank, device): idle + compute + non-compute =
-- span (first GPU start to last GPU end).  compute = union of compute
-- kernels; non-compute = GPU busy with no compute kernel running.
CREATE VIEW hta_temporal AS
SELECT run_id, rank, device,
  sum(ns) AS span_ns,
  sum(CASE WHEN compute + comm + memory = 0 THEN ns ELSE 0 END) AS idle_ns,
  sum(CASE WHEN compute THEN ns ELSE 0 END) AS compute_ns,
  sum(CASE WHEN NOT compute AND comm + memory > 0 THEN ns ELSE 0 END)
    AS non_compute_ns
FROM hta_overlap_piece
GROUP BY run_id, rank, device;

-- Idle intervals per stream: one row per GPU op that starts after every
-- earlier op of its stream has ended.  gap = start - the latest end
-- before it.  host_wait: the op's launch call started after that end
-- (the CPU was late); kernel_wait: otherwise, gap below kernel_wait_ns;
-- other: the rest (waits on other streams, events, ...).
CREATE VIEW hta_idle_interval AS
WITH g AS (
  SELECT run_id, rank, device, stream, kind, row_id, name_id, step, ts,
    runtime_id,
    max(ts + dur) OVER (PARTITION BY run_id, rank, device, stream
                        ORDER BY ts, row_id
                        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
      AS prev_end
  FROM hta_gpu_op
)
SELECT g.run_id, g.rank, g.device, g.stream, g.kind, g.row_id, g.name_id,
  g.step, g.prev_end, g.ts, g.ts - g.prev_end AS gap_ns, r.ts AS launch_ts,
  CASE WHEN r.ts > g.prev_end THEN 'host_wait'
       WHEN g.ts - g.prev_end < (SELECT value FROM hta_setting
                                 WHERE name = 'kernel_wait_ns')
         THEN 'kernel_wait'
       ELSE 'other' END AS category
FROM g LEFT JOIN runtime_call r ON r.id = g.runtime_id
WHERE g.ts > g.prev_end;

-- Launch queue per stream as a step function: one row per change point.
-- +1 when the launch call of a GPU op starts, -1 when the op starts on
-- the GPU; queue_length holds from ts until next_ts.  Ops without a
-- launch call (none recorded) are left out.  Ties: launches first.
CREATE VIEW hta_queue_length AS
WITH ev AS (
  SELECT g.run_id, g.rank, g.device, g.stream, r.ts AS ts, 1 AS d, g.row_id
  FROM hta_gpu_op g JOIN runtime_call r ON r.id = g.runtime_id
  UNION ALL
  SELECT run_id, rank, device, stream, ts, -1, row_id
  FROM hta_gpu_op WHERE runtime_id IS NOT NULL
)
SELECT run_id, rank, device, stream, ts,
  sum(d) OVER w AS queue_length,
  lead(ts) OVER w AS next_ts
FROM ev
WINDOW w AS (PARTITION BY run_id, rank, device, stream
             ORDER BY ts, d DESC, row_id ROWS UNBOUNDED PRECEDING);

-- Memory bandwidth of every memcpy / memset: bytes / duration (bytes per
-- ns = GB/s).  kind as HTA names it: 'Memcpy HtoD', ..., 'Memset'.
CREATE VIEW hta_memory_bw AS
SELECT run_id, rank, device, stream, id AS row_id, step, ts, dur, bytes,
  CASE kind WHEN 'memset' THEN 'Memset'
    ELSE 'Memcpy ' || coalesce(direction, 'unknown') END AS kind,
  CASE WHEN dur > 0 AND bytes IS NOT NULL THEN bytes * 1.0 / dur END AS gbps
FROM gpu_mem_op;

-- CPU user annotations (record_function) with their nesting on the
-- thread: parent = the innermost annotation of the same thread that
-- contains it; path = names from the outermost down, ' / ' between.
-- ProfilerStep#N ranges are steps, not annotations: left out.
CREATE VIEW hta_annotation_tree AS
WITH RECURSIVE
a AS MATERIALIZED (
  SELECT a.id, a.run_id, a.rank, a.tid, a.ts, a.dur, s.text AS name
  FROM annotation a JOIN string s ON s.id = a.name_id
  WHERE a.kind = 'user' AND s.text NOT LIKE 'ProfilerStep#%'
),
p AS MATERIALIZED (
  SELECT c.id, (SELECT q.id FROM a q
     WHERE q.run_id = c.run_id AND q.rank = c.rank AND q.tid = c.tid
       AND q.id <> c.id AND q.ts <= c.ts AND q.ts + q.dur >= c.ts + c.dur
       AND (q.ts < c.ts OR q.dur > c.dur OR q.id < c.id)
     ORDER BY q.ts DESC, q.dur, q.id DESC LIMIT 1) AS parent_id
  FROM a c
),
t(id, parent_id, depth, path) AS (
  SELECT a.id, NULL, 0, a.name FROM a JOIN p ON p.id = a.id
  WHERE p.parent_id IS NULL
  UNION ALL
  SELECT a.id, t.id, t.depth + 1, t.path || ' / ' || a.name
  FROM t JOIN p ON p.parent_id = t.id JOIN a ON a.id = p.id
)
SELECT a.run_id, a.rank, a.tid, a.id, t.parent_id, t.depth, a.name, t.path,
  a.ts, a.dur
FROM t JOIN a ON a.id = t.id;

-- Each GPU op with the innermost CPU annotation around its launch call
-- (same thread, launch start inside the range), NULL when none.
CREATE VIEW hta_annotation_kernel AS
SELECT g.run_id, g.rank, g.device, g.stream, g.kind, g.row_id, g.name_id,
  g.ts, g.dur, g.step, g.class,
  (SELECT a.id FROM annotation a
   WHERE a.run_id = r.run_id AND a.rank = r.rank AND a.kind = 'user'
     AND a.tid = r.tid AND a.ts <= r.ts AND a.ts + a.dur >= r.ts
     AND a.name_id NOT IN (SELECT id FROM string
                           WHERE text LIKE 'ProfilerStep#%')
   ORDER BY a.ts DESC, a.dur LIMIT 1) AS annotation_id
FROM hta_gpu_op g JOIN runtime_call r ON r.id = g.runtime_id;

-- Critical path per (rank, step) and class, % of the step.  A kernel of
-- the coarse 'comm' category is class comm_kernel.
CREATE VIEW hta_critical_path_share AS
WITH cm AS MATERIALIZED (
  SELECT name_id FROM kernel_category
  WHERE scheme = 'coarse' AND category = 'comm'
)
SELECT c.run_id, c.rank, c.step,
  CASE WHEN c.class = 'kernel' AND c.name_id IN cm THEN 'comm_kernel'
       ELSE c.class END AS class,
  sum(c.ns) AS ns, sum(c.segments) AS segments,
  round(100.0 * sum(c.ns) / max(s.dur, 1), 2) AS pct
FROM hta_critical_path_op c
JOIN step s ON s.run_id = c.run_id AND s.rank = c.rank AND s.step = c.step
GROUP BY c.run_id, c.rank, c.step,
  CASE WHEN c.class = 'kernel' AND c.name_id IN cm THEN 'comm_kernel'
       ELSE c.class END;

-- Headline numbers for run_metric (the lead unions hta_metric into it),
-- computed at ingest by derive_hta.c from the rows it loads for the
-- critical path, so that trend / check / diff read a few rows per run:
--   hta_idle_pct, hta_compute_pct, hta_non_compute_pct
--                         temporal breakdown, % of the GPU span (all GPUs)
--   hta_host_wait_pct     host-wait share of stream idle time, %
--   hta_queue_mean        time-weighted mean launch queue length of each
--                         rank's busiest stream (most ops), mean over ranks
--   hta_queue_blocked_ms  time with a queue at queue_full, per step
--   hta_copy_gbps         memcpy bytes / memcpy time, all directions
--   hta_cp_CLASS_pct      critical-path share of CLASS (comm_kernel for
--                         communication kernels), all steps
-- Same definitions as the views above, with the kernel categories and
-- thresholds of the time of the ingest (the views follow later changes).
CREATE TABLE hta_run_metric(
  run_id INTEGER NOT NULL,
  metric TEXT NOT NULL,
  value REAL
);
CREATE INDEX hta_run_metric_run ON hta_run_metric(run_id);

CREATE VIEW hta_metric AS
SELECT run_id, metric, value FROM hta_run_metric;

INSERT OR IGNORE INTO metric_direction VALUES
  ('hta_idle_pct', 50, 1),
  ('hta_compute_pct', 51, -1),
  ('hta_non_compute_pct', 52, 0),
  ('hta_host_wait_pct', 53, 1),
  ('hta_queue_mean', 54, 0),
  ('hta_queue_blocked_ms', 55, 1),
  ('hta_copy_gbps', 56, -1),
  ('hta_cp_*', 57, 0);

-- What a CUDA runtime / driver call does, for the critical path: 'launch'
-- (enqueues GPU work and returns) or 'sync' (blocks the CPU until GPU
-- work ends).  GLOB patterns over the call name; lowest priority wins;
-- calls matching nothing are plain runtime time.  Data: add rows.
CREATE TABLE hta_runtime_role(
  pattern TEXT PRIMARY KEY,
  priority INTEGER NOT NULL,
  role TEXT NOT NULL               -- 'launch' or 'sync'
);
INSERT INTO hta_runtime_role VALUES
  ('*Synchronize*', 10, 'sync'),
  ('cudaMemcpy', 11, 'sync'),
  ('cudaMemcpy2D', 12, 'sync'),
  ('hipMemcpy', 13, 'sync'),
  ('cudaLaunchKernel*', 20, 'launch'),
  ('cuLaunchKernel*', 21, 'launch'),
  ('cudaLaunchCooperativeKernel*', 22, 'launch'),
  ('cudaGraphLaunch', 23, 'launch'),
  ('cudaMemcpyAsync', 24, 'launch'),
  ('cudaMemsetAsync', 25, 'launch'),
  ('cudaMemcpy2DAsync', 26, 'launch'),
  ('hipLaunchKernel', 27, 'launch'),
  ('hipExtModuleLaunchKernel', 28, 'launch'),
  ('hipMemcpyAsync', 29, 'launch'),
  ('hipMemsetAsync', 30, 'launch'),
  ('hipMemcpyWithStream', 31, 'launch');
