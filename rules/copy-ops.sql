-- name: copy-ops
-- description: Copies and dtype/device conversions: GPU time of the
-- description: kernels, memcpys and memsets launched directly by the CPU
-- description: operators aten::copy_, aten::to and aten::_to_copy, as a
-- description: share of all GPU activity time, above threshold_pct.
-- param: threshold_pct:number>=0 = 10  share of GPU time, %
WITH launch AS (
  SELECT op_id, dur FROM kernel WHERE run_id = :run AND op_id IS NOT NULL
  UNION ALL
  SELECT op_id, dur FROM gpu_mem_op WHERE run_id = :run
    AND op_id IS NOT NULL
),
c AS (
  SELECT sum(l.dur) AS ns, count(DISTINCT l.op_id) AS calls
  FROM launch l JOIN cpu_op o ON o.id = l.op_id
  JOIN string s ON s.id = o.name_id
  WHERE s.text IN ('aten::copy_', 'aten::to', 'aten::_to_copy')
),
t AS (SELECT sum(total_ns) AS ns FROM gpu_op_summary WHERE run_id = :run),
v AS (SELECT c.calls, 100.0 * c.ns / t.ns AS value FROM c, t
      WHERE t.ns > 0 AND c.ns > 0)
SELECT 'medium' AS severity, 'copy-ops' AS rule,
  printf('aten::copy_/aten::to launch %.1f %% of GPU time (%d calls)',
         value, calls) AS message,
  round(value, 2) AS value, :threshold_pct AS threshold,
  'keep data on device, avoid host<->device round trips' AS hint
FROM v WHERE value > :threshold_pct;
