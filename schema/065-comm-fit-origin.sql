-- 065-comm-fit-origin.sql — the alpha-beta fit with a latency that
-- cannot be negative (issue 32): the free least-squares intercept of
-- hta-diff-test-v100-rank1's all_reduce was -119.6 µs, sizes far from
-- the latency regime.  alpha >= 0 is a constrained least squares whose
-- optimum, when the free intercept is negative, lies on alpha = 0 (the
-- error is convex in alpha and beta): the slope is then fitted through
-- the origin, b = sum(bytes * dur) / sum(bytes²), its standard error
-- and the residual error with n - 1 degrees of freedom, R² against 0
-- (uncentred).  derive_comm.c (fit_flush) computes it at ingest;
-- alpha_fixed says which fit a row is.  Rows stored before this file
-- are refitted here with the same formulas.
ALTER TABLE comm_fit ADD COLUMN alpha_fixed INTEGER NOT NULL DEFAULT 0;

UPDATE comm_fit SET alpha_fixed = 1, alpha_ns = 0.0, alpha_se_ns = NULL,
  slope_ns_per_byte = (
    SELECT sum(1.0 * c.bytes * c.dur) / sum(1.0 * c.bytes * c.bytes)
    FROM collective c WHERE c.run_id = comm_fit.run_id
      AND c.op = comm_fit.op AND c.group_size IS comm_fit.group_size
      AND c.bytes > 0 AND c.dur > 0)
WHERE alpha_ns < 0;

UPDATE comm_fit SET
  rmse_ns = (
    SELECT CASE WHEN count(*) > 1 THEN
      sqrt(sum((c.dur - comm_fit.slope_ns_per_byte * c.bytes)
               * (c.dur - comm_fit.slope_ns_per_byte * c.bytes))
           / (count(*) - 1)) END
    FROM collective c WHERE c.run_id = comm_fit.run_id
      AND c.op = comm_fit.op AND c.group_size IS comm_fit.group_size
      AND c.bytes > 0 AND c.dur > 0),
  r2 = (
    SELECT 1.0 - sum((c.dur - comm_fit.slope_ns_per_byte * c.bytes)
                     * (c.dur - comm_fit.slope_ns_per_byte * c.bytes))
                 / sum(1.0 * c.dur * c.dur)
    FROM collective c WHERE c.run_id = comm_fit.run_id
      AND c.op = comm_fit.op AND c.group_size IS comm_fit.group_size
      AND c.bytes > 0 AND c.dur > 0)
WHERE alpha_fixed = 1;

UPDATE comm_fit SET slope_se = rmse_ns / sqrt((
    SELECT sum(1.0 * c.bytes * c.bytes)
    FROM collective c WHERE c.run_id = comm_fit.run_id
      AND c.op = comm_fit.op AND c.group_size IS comm_fit.group_size
      AND c.bytes > 0 AND c.dur > 0))
WHERE alpha_fixed = 1;
