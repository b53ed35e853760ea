-- name: fill-kernels
-- description: Fill and zero kernels (a kernel name containing "fill" or
-- description: "zero") above threshold_pct of GPU activity time; needs
-- description: the run's evidence (run_evidence).
-- param: threshold_pct:number>=0 = 5   share of GPU time, %
WITH t AS (
  SELECT sum(g.total_ns) AS ns,
    sum(CASE WHEN g.kind = 'kernel' AND (lower(s.text) GLOB '*fill*'
                                         OR lower(s.text) GLOB '*zero*')
             THEN g.total_ns ELSE 0 END) AS fill_ns
  FROM gpu_op_summary g JOIN string s ON s.id = g.name_id
  WHERE g.run_id = :run
),
v AS (SELECT 100.0 * fill_ns / ns AS value FROM t WHERE ns > 0)
SELECT 'medium' AS severity, 'fill-kernels' AS rule,
  printf('fill/zero kernels take %.1f %% of GPU time', value) AS message,
  round(value, 2) AS value, :threshold_pct AS threshold,
  'reuse buffers, lazy initialization, zero_grad(set_to_none=True)' AS hint
FROM v WHERE value > :threshold_pct
  AND (SELECT enough FROM run_evidence WHERE run_id = :run);
