-- name: critical-path
-- description: Per rank and step, the critical path: the chain of dependent
-- description: work, walked back from the step end (CPU program order,
-- description: launch -> GPU op, stream order, sync -> the GPU op it waited
-- description: for, inferred cross-stream waits), whose segments add up to
-- description: the step time; its share by class and its largest single
-- description: contributor.  Making something off the path faster does not
-- description: shorten the step.  Computed at ingest (hta_critical_path_op);
-- description: the classes are defined in the README (HTA analyses).
-- param: rank:rank =           only this rank (empty: all ranks)
-- param: step:int =           only this step (empty: all steps)
-- column: rank             rank
-- column: step             step
-- column: step_ms          step duration, ms (= the path's length)
-- column: cpu_op_pct       CPU op time (outermost op, nested ops included), %
-- column: launch_pct       launch calls and launch -> GPU start latency, %
-- column: runtime_pct      other CUDA runtime calls outside ops, %
-- column: sync_pct         synchronising calls waiting after the GPU finished, %
-- column: kernel_pct       compute kernels, %
-- column: comm_pct         communication kernels (coarse category comm), %
-- column: memory_pct       memcpy and memset, %
-- column: gpu_wait_pct     stream waiting with its next op launched, %
-- column: idle_pct         no CPU event recorded on any thread, %
-- column: top_class        class of the largest contributor
-- column: top_name         the largest contributor (op, call or kernel name)
-- column: top_ms           its time on the path, ms
WITH sh AS (
  SELECT rank, step, class, pct FROM hta_critical_path_share
  WHERE run_id = :run AND (:rank IS NULL OR rank = :rank)
    AND (:step IS NULL OR step = :step)
),
top AS (
  SELECT rank, step, class, name_id, ns FROM (
    SELECT rank, step, class, name_id, ns,
      row_number() OVER (PARTITION BY rank, step ORDER BY ns DESC) AS i
    FROM hta_critical_path_op
    WHERE run_id = :run AND name_id IS NOT NULL
      AND (:rank IS NULL OR rank = :rank) AND (:step IS NULL OR step = :step))
  WHERE i = 1
),
-- the shares per (rank, step) first: joined row by row to top, every
-- share row scanned top whole (1.7 s at 256 ranks, 2,144 x 256)
p AS (
  SELECT rank, step,
  coalesce(sum(CASE WHEN class = 'cpu_op' THEN pct END), 0) AS cpu_op_pct,
  coalesce(sum(CASE WHEN class = 'launch' THEN pct END), 0) AS launch_pct,
  coalesce(sum(CASE WHEN class = 'runtime' THEN pct END), 0) AS runtime_pct,
  coalesce(sum(CASE WHEN class = 'sync' THEN pct END), 0) AS sync_pct,
  coalesce(sum(CASE WHEN class = 'kernel' THEN pct END), 0) AS kernel_pct,
  coalesce(sum(CASE WHEN class = 'comm_kernel' THEN pct END), 0) AS comm_pct,
  coalesce(sum(CASE WHEN class IN ('memcpy', 'memset') THEN pct END), 0)
    AS memory_pct,
  coalesce(sum(CASE WHEN class = 'gpu_wait' THEN pct END), 0)
    AS gpu_wait_pct,
  coalesce(sum(CASE WHEN class = 'idle' THEN pct END), 0) AS idle_pct
  FROM sh GROUP BY rank, step
)
SELECT s.rank, s.step, round(s.dur / 1e6, 3) AS step_ms, p.cpu_op_pct,
  p.launch_pct, p.runtime_pct, p.sync_pct, p.kernel_pct, p.comm_pct,
  p.memory_pct, p.gpu_wait_pct, p.idle_pct,
  t.class AS top_class, n.text AS top_name, round(t.ns / 1e6, 3) AS top_ms
FROM step s
JOIN p ON p.rank = s.rank AND p.step = s.step
LEFT JOIN top t ON t.rank = s.rank AND t.step = s.step
LEFT JOIN string n ON n.id = t.name_id
WHERE s.run_id = :run
ORDER BY s.rank, s.step;
