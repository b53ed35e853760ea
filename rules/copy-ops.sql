-- name: copy-ops
-- description: Conversions on the GPU: the time of the kernels launched
-- description: directly by the CPU operators aten::copy_, aten::to and
-- description: aten::_to_copy (dtype and layout conversions), as a share
-- description: of all GPU activity time, above threshold_pct.  Their
-- description: memcpy and memset time belongs to memory-ops (one finding
-- description: per cause).  Needs the run's evidence (run_evidence).
-- param: threshold_pct:number>=0 = 10  share of GPU time, %
WITH c AS (
  SELECT sum(k.dur) AS ns, count(DISTINCT k.op_id) AS calls
  FROM kernel k JOIN cpu_op o ON o.id = k.op_id
  JOIN string s ON s.id = o.name_id
  WHERE k.run_id = :run AND k.op_id IS NOT NULL
    AND s.text IN ('aten::copy_', 'aten::to', 'aten::_to_copy')
),
t AS (SELECT sum(total_ns) AS ns FROM gpu_op_summary WHERE run_id = :run),
v AS (SELECT c.calls, 100.0 * c.ns / t.ns AS value FROM c, t
      WHERE t.ns > 0 AND c.ns > 0)
SELECT 'medium' AS severity, 'copy-ops' AS rule,
  printf('conversion kernels launched by aten::copy_/aten::to take %.1f %%'
         || ' of GPU time (%d calls)', value, calls) AS message,
  round(value, 2) AS value, :threshold_pct AS threshold,
  'dtype/layout conversions on the GPU: keep tensors in the dtype and'
  || ' layout the next op needs (autocast regions, channels_last once,'
  || ' .to() outside the loop)' AS hint
FROM v WHERE value > :threshold_pct
  AND (SELECT enough FROM run_evidence WHERE run_id = :run);
