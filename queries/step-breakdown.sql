-- name: step-breakdown
-- description: Wall time of each step split by what was running, counted by
-- description: priority (kernel > memcpy > memset > comm > runtime > cpu > idle)
-- description: so that the columns sum to the step's wall time.  comm is
-- description: communication not hidden behind compute; runtime is CUDA API
-- description: time with no GPU work; cpu is CPU ops with neither.
-- param: rank:rank =           only this rank (empty: every rank)
-- column: rank            rank
-- column: step            step number; NULL = time outside every step
-- column: span            'step', or 'outside steps' (time around steps)
-- column: wall_ms         sum of the columns, ms
-- column: kernel_ms       compute kernels running, ms
-- column: memcpy_ms       memcpy running and no kernel, ms
-- column: memset_ms       memset running and nothing above, ms
-- column: comm_ms         communication kernels only (exposed), ms
-- column: runtime_ms      CUDA runtime/driver calls, GPU idle, ms
-- column: cpu_ms          CPU ops only, ms
-- column: idle_ms         nothing recorded, ms
-- column: gpu_busy_pct    (kernel+memcpy+memset+comm) / wall, %
-- column: gpu_busy_pct_bar  gpu_busy_pct as a bar (table output)
SELECT rank, step,
  CASE WHEN step IS NULL THEN 'outside steps' ELSE 'step' END AS span,
  round(sum(ns) / 1e6, 3) AS wall_ms,
  round(sum(CASE class WHEN 'kernel' THEN ns ELSE 0 END) / 1e6, 3) AS kernel_ms,
  round(sum(CASE class WHEN 'memcpy' THEN ns ELSE 0 END) / 1e6, 3) AS memcpy_ms,
  round(sum(CASE class WHEN 'memset' THEN ns ELSE 0 END) / 1e6, 3) AS memset_ms,
  round(sum(CASE class WHEN 'comm' THEN ns ELSE 0 END) / 1e6, 3) AS comm_ms,
  round(sum(CASE class WHEN 'runtime' THEN ns ELSE 0 END) / 1e6, 3) AS runtime_ms,
  round(sum(CASE class WHEN 'cpu' THEN ns ELSE 0 END) / 1e6, 3) AS cpu_ms,
  round(sum(CASE class WHEN 'idle' THEN ns ELSE 0 END) / 1e6, 3) AS idle_ms,
  round(100.0 * sum(CASE WHEN class IN ('kernel','memcpy','memset','comm')
                         THEN ns ELSE 0 END) / max(sum(ns), 1), 2) AS gpu_busy_pct,
  round(100.0 * sum(CASE WHEN class IN ('kernel','memcpy','memset','comm')
                         THEN ns ELSE 0 END) / max(sum(ns), 1), 2)
    AS gpu_busy_pct_bar
FROM step_time
WHERE run_id = :run AND (:rank IS NULL OR rank = :rank)
GROUP BY rank, step
ORDER BY rank, step IS NULL, step;
