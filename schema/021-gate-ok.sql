-- 021-gate-ok.sql — the second error level of `profan check`'s "ok".
--
-- The gate calls a step metric ok when the confidence interval of the
-- shift (at level alpha each end) stays below the threshold AND either
-- the shift estimate is nearer no change than the threshold (below half
-- of it) or the upper end of a wider interval, at alpha_ok, stays below
-- the threshold too.  The second arm lets a precisely measured small
-- slowdown (many steps) pass; alpha_ok bounds how often a slowdown of
-- the threshold passes through it.  See README "The regression gate".
INSERT INTO gate_param VALUES
  ('alpha_ok', 0.001, 'error probability of the upper end of the wider '
   || 'interval that lets a shift of half the threshold or more pass as '
   || 'ok (used when smaller than alpha)');
