-- 067-step-share.sql — the step time a share of it is taken of (issue 32:
-- diff-categories / diff-kernels a_step_pct read 147 % on the MI300X
-- fixture, 101.9 % on fixtures/hta32/blocked-queue).  Their numerator is
-- GPU time per step (all of the run's GPU ops, summed, over its steps);
-- the denominator was the mean CPU step, which does not contain it when
-- the GPU runs behind the CPU (MI300X: the GPU works 38 ms past the last
-- CPU step) or before the first step (a warm-up), nor when streams run
-- at once.  step_ns is now the longest of
--   the mean CPU step                                 (step.dur),
--   the GPU-side span of the run's GPU work per step  (gpu_busy: last
--     end - first start, summed over ranks and devices, / steps),
--   the GPU time per step summed over streams         (gpu_busy: kernel,
--     memcpy and memset time = gpu_op_summary's total, / steps),
-- so any part of the GPU time per step is at most 100 % of it.  Per
-- rank-step, as the queries' numerators (step rows of every rank).  It
-- reads stored summaries only, so a --summaries-only history answers the
-- same.
CREATE VIEW step_share AS
SELECT run_id, steps,
  max(cpu_step_ns, span_ns * 1.0 / steps, gpu_ns * 1.0 / steps) AS step_ns,
  cpu_step_ns
FROM (
  SELECT r.id AS run_id,
    (SELECT max(count(*), 1) FROM step s WHERE s.run_id = r.id) AS steps,
    coalesce((SELECT avg(dur) FROM step s WHERE s.run_id = r.id), 0.0)
      AS cpu_step_ns,
    coalesce((SELECT sum(last_end - first_ts) FROM gpu_busy b
              WHERE b.run_id = r.id), 0) AS span_ns,
    coalesce((SELECT sum(kernel_ns + memcpy_ns + memset_ns) FROM gpu_busy b
              WHERE b.run_id = r.id), 0) AS gpu_ns
  FROM run r
);
