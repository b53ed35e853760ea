-- name: steps
-- description: Step durations per rank from ProfilerStep#N annotations (or
-- description: from GPU idle-gap detection when a rank has none: see source),
-- description: each marked steady or not (view step_steady: leading steps
-- description: outside the tolerance of the rank's median are warm-up, a last
-- description: step outside it is cut by the profiler window).  The step time
-- description: bounds the work: when the GPU work a step launched ends after
-- description: the next step began (the CPU runs ahead), the step ends with it
-- description: (bound_by 'gpu'; cpu_ms is the ProfilerStep range).
-- description: skip_first=1 drops each rank's first profiled step;
-- description: steady_only=1 lists the steady steps only.
-- param: skip_first:bool = 0   1: leave out the first step of every rank
-- param: steady_only:bool = 0  1: only the steady steps
-- param: rank:rank =           only this rank (empty: every rank)
-- column: rank            rank
-- column: step            step number (N of ProfilerStep#N; gap steps count from 0)
-- column: start_ms        start of the step time relative to the run's first CPU step, ms
-- column: dur_ms          step time, ms: from the step's start until its CPU part and the GPU work it launched are done
-- column: cpu_ms          the CPU step (ProfilerStep range or gap step), ms
-- column: bound_by        'cpu': the CPU step; 'gpu': the GPU work it launched sets an end (the CPU runs ahead)
-- column: gpu_kernel_ms   kernel time launched in the step, ms
-- column: kernels         kernels launched in the step
-- column: vs_median_pct   duration relative to the rank's median steady step, %
-- column: source          'ProfilerStep' or 'gap' (gap detection)
-- column: steady          1 steady, 0 warm-up or cut (left out of step statistics)
-- column: reason          '', 'warm-up' or 'cut'
-- column: dur_bar         dur_ms / the rank's longest step shown, as a bar
WITH s AS (
  SELECT rank, step, ts, dur, cpu_dur, bound_by, source, steady, reason,
    pos AS k
  FROM step_steady
  WHERE run_id = :run AND (:rank IS NULL OR rank = :rank)
),
kept AS (
  SELECT * FROM s WHERE k > :skip_first AND (NOT :steady_only OR steady)
),
med AS (
  SELECT rank, avg(dur) AS median FROM (
    SELECT rank, dur,
      row_number() OVER (PARTITION BY rank ORDER BY dur) AS i,
      count(*) OVER (PARTITION BY rank) AS n
    FROM s WHERE steady)
  WHERE i IN ((n + 1) / 2, (n + 2) / 2)
  GROUP BY rank
),
k AS (
  -- kernels per step from step_kernel_summary (schema 009)
  SELECT rank, step, kernel_ns AS ns, kernels AS n FROM step_kernel_summary
  WHERE run_id = :run
)
SELECT kept.rank, kept.step,
  round((kept.ts - (SELECT min(ts) FROM step WHERE run_id = :run)) / 1e6, 3)
    AS start_ms,
  round(kept.dur / 1e6, 3) AS dur_ms,
  round(kept.cpu_dur / 1e6, 3) AS cpu_ms, kept.bound_by,
  round(coalesce(k.ns, 0) / 1e6, 3) AS gpu_kernel_ms,
  coalesce(k.n, 0) AS kernels,
  round(100.0 * kept.dur / med.median, 1) AS vs_median_pct,
  kept.source, kept.steady, kept.reason,
  round(1.0 * kept.dur / max(kept.dur) OVER (PARTITION BY kept.rank), 4)
    AS dur_bar
FROM kept
LEFT JOIN med ON med.rank = kept.rank
LEFT JOIN k ON k.rank = kept.rank AND k.step = kept.step
ORDER BY kept.rank, kept.ts;
