-- name: kernel-launch-stats
-- description: HTA's CUDA kernel launch statistics (get_cuda_kernel_launch_stats)
-- description: per launch call name and GPU op name: the launch call's
-- description: duration (cpu), the op's duration (gpu) and the launch delay
-- description: (op start - call end, 0 when the op started before the call
-- description: returned), with HTA's three outlier counts: short GPU ops
-- description: (gpu < cpu, cpu <= runtime_cutoff_us), runtime outliers (cpu >
-- description: runtime_cutoff_us) and launch delay outliers (delay >
-- description: launch_delay_cutoff_us).  Every GPU op with a launch call
-- description: counts (kernels, memcpy, memset; a graph launch's ops each).
-- param: rank:rank =           only this rank (empty: all ranks)
-- param: runtime_cutoff_us:number>=0 = 50   launch calls longer than this are runtime outliers, us
-- param: launch_delay_cutoff_us:number>=0 = 100   launch delays longer than this are outliers, us
-- param: limit:int>=0 = 25      rows to show, most outliers first
-- column: rank             rank
-- column: call             launch call (cudaLaunchKernel, cudaMemcpyAsync, ...)
-- column: name             GPU op name (kernel, Memcpy ..., Memset ...)
-- column: launches         GPU ops launched
-- column: cpu_mean_us      mean launch call duration, us
-- column: cpu_max_us       longest launch call, us
-- column: gpu_mean_us      mean GPU op duration, us
-- column: delay_mean_us    mean launch delay, us
-- column: delay_max_us     largest launch delay, us
-- column: short_gpu        GPU ops shorter than their launch call (call within the cutoff)
-- column: runtime_outliers  launch calls over runtime_cutoff_us
-- column: delay_outliers   launch delays over launch_delay_cutoff_us
-- column: outlier_pct      launches that are a runtime or a delay outlier (or both) / launches, %
WITH g AS (
  SELECT rank, runtime_id, name_id, dur, ts FROM kernel
  WHERE run_id = :run AND runtime_id IS NOT NULL
    AND (:rank IS NULL OR rank = :rank)
  UNION ALL
  SELECT rank, runtime_id, name_id, dur, ts FROM gpu_mem_op
  WHERE run_id = :run AND runtime_id IS NOT NULL
    AND (:rank IS NULL OR rank = :rank)
),
l AS (
  SELECT g.rank, r.name_id AS call_id, g.name_id, r.dur AS cpu, g.dur AS gpu,
    max(0, g.ts - (r.ts + r.dur)) AS delay
  FROM g JOIN runtime_call r ON r.id = g.runtime_id
),
a AS (
  SELECT rank, call_id, name_id, count(*) AS n, avg(cpu) AS cpu_mean,
    max(cpu) AS cpu_max, avg(gpu) AS gpu_mean, avg(delay) AS delay_mean,
    max(delay) AS delay_max,
    sum(gpu < cpu AND cpu <= :runtime_cutoff_us * 1e3) AS short_gpu,
    sum(cpu > :runtime_cutoff_us * 1e3) AS rt_out,
    sum(delay > :launch_delay_cutoff_us * 1e3) AS delay_out,
    sum(cpu > :runtime_cutoff_us * 1e3
        OR delay > :launch_delay_cutoff_us * 1e3) AS any_out
  FROM l GROUP BY rank, call_id, name_id
)
SELECT a.rank, c.text AS call, s.text AS name, a.n AS launches,
  round(cpu_mean / 1e3, 3) AS cpu_mean_us, round(cpu_max / 1e3, 3) AS cpu_max_us,
  round(gpu_mean / 1e3, 3) AS gpu_mean_us,
  round(delay_mean / 1e3, 3) AS delay_mean_us,
  round(delay_max / 1e3, 3) AS delay_max_us,
  short_gpu, rt_out AS runtime_outliers, delay_out AS delay_outliers,
  round(100.0 * any_out / a.n, 2) AS outlier_pct
FROM a JOIN string c ON c.id = a.call_id JOIN string s ON s.id = a.name_id
ORDER BY any_out DESC, a.n DESC, a.rank, c.text, s.text
LIMIT :limit;
