-- name: alpha-beta
-- description: Latency / bandwidth model per collective and group size:
-- description: least-squares fit of kernel time = alpha + bytes / beta over
-- description: every rank's collectives with a known size, with the fit's
-- description: standard errors, residual error and R².  Needs at least two
-- description: distinct message sizes (else alpha and beta are empty).  A
-- description: latency is never negative: when the free fit's alpha is,
-- description: alpha is fixed at 0 and beta fitted through the origin
-- description: (alpha_fit 'zero'; the least squares with alpha >= 0).
-- param: op:text =             only this op
-- column: op               collective
-- column: group_size       ranks in the group
-- column: samples          kernels in the fit
-- column: sizes            distinct message sizes
-- column: min_bytes        smallest message
-- column: max_bytes        largest message
-- column: alpha_us         latency term, µs (>= 0)
-- column: alpha_fit        'free' (least squares) or 'zero' (the free intercept was negative: alpha fixed at 0, beta fitted through the origin)
-- column: alpha_se_us      standard error of alpha, µs (empty when fixed)
-- column: beta_gbps        bandwidth term (1 / slope), GB/s
-- column: beta_se_gbps     standard error of beta (propagated from the slope), GB/s
-- column: rmse_us          residual standard error, µs
-- column: r2               coefficient of determination (against the mean; against 0 when alpha_fit is 'zero')
SELECT op, group_size, n AS samples, n_sizes AS sizes, min_bytes, max_bytes,
  round(alpha_ns / 1e3, 3) AS alpha_us,
  CASE WHEN alpha_ns IS NOT NULL THEN
    CASE alpha_fixed WHEN 1 THEN 'zero' ELSE 'free' END END AS alpha_fit,
  round(alpha_se_ns / 1e3, 3) AS alpha_se_us,
  CASE WHEN slope_ns_per_byte > 0 THEN round(1.0 / slope_ns_per_byte, 3) END
    AS beta_gbps,
  CASE WHEN slope_ns_per_byte > 0 AND slope_se IS NOT NULL THEN
    round(slope_se / (slope_ns_per_byte * slope_ns_per_byte), 3) END
    AS beta_se_gbps,
  round(rmse_ns / 1e3, 3) AS rmse_us,
  round(r2, 4) AS r2
FROM comm_fit
WHERE run_id = :run AND (:op IS NULL OR op = :op)
ORDER BY op, group_size;
