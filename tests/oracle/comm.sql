-- comm.sql — the specification of the windows of the host collectives
-- (gloo / MPI ranges, collective rows without a kernel; schema
-- 090-cpu-comm.sql): what each rank did on the host before each of them.
-- profan computes them one way, in C (src/comm/derive_comm.c
-- host_windows), from the CPU-op intervals kept of every row
-- (src/trace/trace_spans.c, SPAN_HOST), fed by the trace writer or by the
-- stored-rows feeder (src/trace/trace_feed.c); tests/e2e/test_oracle.py
-- runs the query below on every fixture and ordering, test_torch.py on
-- real two-process gloo runs.
--
-- Format: as summaries.sql.

-- spec: host_windows
-- A host collective's window runs from the end of the rank's previous
-- host collective (the first: from the rank's first CPU op, at most its
-- own start) to its start; its compute is the time of the window covered
-- by the rank's CPU ops on any thread (the union of their intervals),
-- leaving out the host collective ranges (comm_cpu_pattern) and the
-- ProfilerStep#N ranges; at most the window.
-- stored: SELECT w.collective_id, w.window_ns, w.compute_ns, w.idle_ns FROM collective_window w JOIN collective c ON c.id = w.collective_id WHERE c.kernel_id IS NULL
WITH ops AS (
  SELECT o.run_id, o.rank, o.ts, o.ts + o.dur AS e
  FROM cpu_op o JOIN string s ON s.id = o.name_id
  WHERE s.text NOT GLOB 'ProfilerStep#*'
    AND NOT EXISTS (SELECT 1 FROM comm_cpu_pattern p
                    WHERE s.text GLOB p.pattern)
    -- only the ranks that have host collectives (the rest have no host
    -- window: their ops are not read)
    AND (o.run_id, o.rank) IN (SELECT run_id, rank FROM collective
                               WHERE kernel_id IS NULL)),
m AS (
  SELECT run_id, rank, ts, e,
    max(e) OVER (PARTITION BY run_id, rank ORDER BY ts, e
                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS pe
  FROM ops),
g AS (
  SELECT run_id, rank, ts, e,
    sum(pe IS NULL OR ts > pe) OVER (PARTITION BY run_id, rank
                                     ORDER BY ts, e ROWS UNBOUNDED PRECEDING)
      AS grp
  FROM m),
u AS MATERIALIZED (
  SELECT run_id, rank, min(ts) AS u0, max(e) AS u1
  FROM g GROUP BY run_id, rank, grp),
c AS (
  SELECT x.id, x.run_id, x.rank, x.ts,
    lag(x.ts + x.dur) OVER (PARTITION BY x.run_id, x.rank
                            ORDER BY x.ts, x.id) AS pe
  FROM collective x WHERE x.kernel_id IS NULL),
w AS (
  SELECT c.id, c.run_id, c.rank, c.ts AS t1,
    min(coalesce(c.pe, (SELECT min(o.ts) FROM cpu_op o
                        WHERE o.run_id = c.run_id AND o.rank = c.rank),
                 c.ts), c.ts) AS t0
  FROM c),
k AS (
  SELECT w.id, w.t1 - w.t0 AS win,
    min(w.t1 - w.t0, coalesce((SELECT sum(min(u.u1, w.t1) - max(u.u0, w.t0))
                               FROM u WHERE u.run_id = w.run_id
                                 AND u.rank = w.rank AND u.u0 < w.t1
                                 AND u.u1 > w.t0), 0)) AS comp
  FROM w)
SELECT id, win, comp, win - comp FROM k;
