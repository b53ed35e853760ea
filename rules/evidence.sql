-- name: evidence
-- description: Too little GPU activity to advise on: the run's GPU busy
-- description: time (union of kernels, memcpy, memset over its devices) is
-- description: above zero but below advice_threshold evidence.min_gpu_ms
-- description: (view run_evidence), so the rules that judge GPU time
-- description: (top-category, memory-ops, copy-ops, fill-kernels,
-- description: tiny-kernels, gpu-utilization, exposed-comm) give none.
SELECT 'info' AS severity, 'evidence' AS rule,
  printf('only %.3f ms of GPU activity in the trace: too little to advise'
         || ' on GPU time (at least %g ms); profile more steps',
         gpu_busy_ns / 1e6, min_gpu_ns / 1e6) AS message,
  round(gpu_busy_ns / 1e6, 4) AS value,
  (SELECT value FROM advice_threshold WHERE advice = 'evidence'
   AND name = 'min_gpu_ms') AS threshold,
  'profile a longer window (more steps, past the warm-up) before acting on'
  || ' GPU-time findings' AS hint
FROM run_evidence
WHERE run_id = :run AND gpu_busy_ns > 0 AND NOT enough;
