-- name: memory-headroom
-- description: Device memory use: the largest reserved memory of the
-- description: snapshots (max over the trace) against the device's total
-- description: memory (device table, or gpu_gb).  Below low_pct: room for
-- description: a larger batch (info); above high_pct: OOM risk (high).
-- param: low_pct:number>=0 = 50      below: room for a larger batch
-- param: high_pct:number>=0 = 98     above: OOM risk
-- param: gpu_gb:number>=0 =          device memory, GiB (empty: the device table)
WITH p AS (
  SELECT max(coalesce(max_reserved_bytes, reserved_bytes)) AS bytes
  FROM snapshot WHERE run_id = :run
),
d AS (
  SELECT coalesce(:gpu_gb * 1073741824.0,
    (SELECT max(total_mem_bytes) FROM device WHERE run_id = :run)) AS bytes
),
v AS (
  SELECT p.bytes AS used, d.bytes AS total, 100.0 * p.bytes / d.bytes AS value
  FROM p, d WHERE p.bytes IS NOT NULL AND d.bytes > 0
)
SELECT CASE WHEN value > :high_pct THEN 'high' ELSE 'info' END AS severity,
  'memory-headroom' AS rule,
  printf('peak reserved %.2f GiB of %.2f GiB device memory (%.1f %%)',
         used / 1073741824.0, total / 1073741824.0, value) AS message,
  round(value, 2) AS value,
  CASE WHEN value > :high_pct THEN :high_pct ELSE :low_pct END AS threshold,
  CASE WHEN value > :high_pct
       THEN 'OOM risk: smaller batch, gradient checkpointing,'
            || ' expandable_segments'
       ELSE 'room for a larger batch' END AS hint
FROM v WHERE value < :low_pct OR value > :high_pct;
