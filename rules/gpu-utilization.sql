-- name: gpu-utilization
-- description: GPU utilization (busy union over the active window, all
-- description: devices): high below low_pct, medium below target_pct.  The
-- description: message splits the traced time without GPU work (step_time:
-- description: CPU operators, runtime calls only, nothing recorded) and
-- description: the hint follows it: when more than uninstrumented_pct of
-- description: it has no CPU activity recorded either, the trace cannot
-- description: blame the CPU (uninstrumented time); when runtime calls
-- description: dominate, synchronizations and launches; else CPU-side
-- description: work.  Needs the run's evidence (run_evidence).
-- param: low_pct:number>=0 = 50      below: severity high
-- param: target_pct:number>=0 = 80   below: severity medium
-- param: uninstrumented_pct:number>=0 =  nothing recorded / GPU-idle time, % (empty: advice_threshold gpu-utilization.uninstrumented_pct)
WITH th AS (
  SELECT coalesce(:uninstrumented_pct, (SELECT value FROM advice_threshold
           WHERE advice = 'gpu-utilization'
             AND name = 'uninstrumented_pct')) AS un_pct
),
u AS (
  SELECT value FROM run_metric
  WHERE run_id = :run AND metric = 'gpu_util_pct'
),
t AS (
  SELECT sum(CASE WHEN class = 'cpu' THEN ns ELSE 0 END) AS cpu,
    sum(CASE WHEN class = 'runtime' THEN ns ELSE 0 END) AS rt,
    sum(CASE WHEN class = 'idle' THEN ns ELSE 0 END) AS idle
  FROM step_time WHERE run_id = :run
),
v AS (
  SELECT u.value,
    100.0 * t.cpu / max(t.cpu + t.rt + t.idle, 1) AS cpu_pct,
    100.0 * t.rt / max(t.cpu + t.rt + t.idle, 1) AS rt_pct,
    100.0 * t.idle / max(t.cpu + t.rt + t.idle, 1) AS un_pct,
    t.cpu + t.rt + t.idle AS ns
  FROM u CROSS JOIN t
)
SELECT CASE WHEN value < :low_pct THEN 'high' ELSE 'medium' END AS severity,
  'gpu-utilization' AS rule,
  printf('GPU busy %.1f %% of the active window', value)
  || CASE WHEN v.ns > 0
       THEN printf('; of the traced time without GPU work, %.1f %% had CPU'
                   || ' operators running, %.1f %% only runtime calls and'
                   || ' %.1f %% nothing recorded', cpu_pct, rt_pct,
                   v.un_pct)
       ELSE '' END AS message,
  round(value, 2) AS value,
  CASE WHEN value < :low_pct THEN :low_pct ELSE :target_pct END AS threshold,
  CASE
    WHEN v.ns > 0 AND v.un_pct > th.un_pct
    THEN 'uninstrumented: most of the GPU''s idle time has no CPU activity'
         || ' in the trace either, so nothing in it blames the CPU; profile'
         || ' the host side (the data loader processes, Python outside torch'
         || ' ops: with_stack=True, py-spy) before changing the code'
    WHEN v.ns > 0 AND rt_pct > cpu_pct
    THEN 'the host sat in CUDA runtime calls while the GPU idled:'
         || ' synchronizations (.item(), .cpu(), cudaStreamSynchronize)'
         || ' or launch overhead (CUDA graphs, fewer, larger kernels)'
    ELSE 'CPU-side bottleneck: data loading (more workers, prefetch,'
         || ' pin_memory), Python overhead, synchronizations (.item(),'
         || ' .cpu()), CUDA graphs'
  END AS hint
FROM v CROSS JOIN th
WHERE value < :target_pct
  AND (SELECT enough FROM run_evidence WHERE run_id = :run);
