-- name: rank-skew
-- description: Per-rank step time and GPU busy time against the mean over
-- description: ranks (z-scores), the rank's clock offset (rank_clock) and,
-- description: on the common clock, how often it arrived last at a
-- description: collective (same process group and sequence on two or more
-- description: ranks, arrival spread above min_spread_us) and how long the
-- description: other ranks waited for it there (collective_late).
-- description: straggler is 1 for the ranks the straggler rule names: the
-- description: others lost more than lost_pct of their traced time
-- description: waiting for it.  Step and busy time are shown, never the
-- description: criterion: a rank waiting inside a collective looks busy.
-- description: Thresholds: advice_threshold (straggler, ...), shared with
-- description: the straggler rule.
-- param: lost_pct:number>=0 =       the others' waiting / their traced time (rank_traced_span), % (empty: advice_threshold straggler.lost_pct)
-- param: min_spread_us:number>=0 =  ties below this arrival spread, µs (empty: advice_threshold straggler.min_spread_us)
-- column: rank             rank
-- column: steps            profiled steps of the rank
-- column: step_ms          mean step duration, ms
-- column: step_over_mean_pct  step_ms over the mean of the ranks, %
-- column: step_z           z-score of step_ms over the ranks
-- column: busy_ms          GPU busy time (union of kernels, memcpy, memset), ms
-- column: busy_over_mean_pct  busy_ms over the mean of the ranks, %
-- column: busy_z           z-score of busy_ms
-- column: clock_ms         the rank's clock offset from the common clock, ms (rank_clock)
-- column: late_collectives  collectives this rank arrived at last
-- column: late_ms          summed lateness of those arrivals behind the earliest rank, ms
-- column: waited_for_ms    summed mean wait of the other ranks at those collectives, ms
-- column: late_pct         late_collectives / collectives with a late rank, %
-- column: lost_pct         waited_for_ms / the ranks' mean traced time (GPU, else host: rank_traced_span), %
-- column: straggler        1 when lost_pct is above the straggler threshold
-- column: step_bar         step_ms / the slowest rank's step_ms, as a bar
-- column: step_spark       the rank's step durations in ms, in time order
WITH th AS (
  SELECT coalesce(:lost_pct, (SELECT value FROM advice_threshold
           WHERE advice = 'straggler' AND name = 'lost_pct')) AS lost_pct,
    coalesce(:min_spread_us, (SELECT value FROM advice_threshold
           WHERE advice = 'straggler' AND name = 'min_spread_us'))
      AS min_spread_us
),
ranks AS (
  SELECT rank FROM step WHERE run_id = :run
  UNION SELECT rank FROM gpu_busy WHERE run_id = :run
  UNION SELECT rank FROM collective WHERE run_id = :run
),
st AS (
  SELECT rank, count(*) AS n, avg(dur) AS ns FROM step
  WHERE run_id = :run GROUP BY rank
),
bz AS (
  SELECT rank, sum(busy_ns) AS ns FROM gpu_busy
  WHERE run_id = :run GROUP BY rank
),
m AS (
  SELECT
    (SELECT avg(ns) FROM st) AS st_mean,
    (SELECT sqrt(avg((ns - (SELECT avg(ns) FROM st))
                     * (ns - (SELECT avg(ns) FROM st)))) FROM st) AS st_sd,
    (SELECT avg(ns) FROM bz) AS bz_mean,
    (SELECT sqrt(avg((ns - (SELECT avg(ns) FROM bz))
                     * (ns - (SELECT avg(ns) FROM bz)))) FROM bz) AS bz_sd
),
decisive AS (
  SELECT l.* FROM collective_late l CROSS JOIN th
  WHERE l.run_id = :run AND l.spread_ns > th.min_spread_us * 1e3
),
late AS (
  SELECT late_rank AS rank, count(*) AS n, sum(spread_ns) AS ns,
    sum(waited_ns) AS wait_ns
  FROM decisive GROUP BY late_rank
),
span AS (
  SELECT avg(span_ns) AS ns FROM rank_traced_span
  WHERE run_id = :run
    AND rank IN (SELECT rank FROM collective WHERE run_id = :run)
)
SELECT r.rank, st.n AS steps,
  round(st.ns / 1e6, 3) AS step_ms,
  round(100.0 * (st.ns - m.st_mean) / m.st_mean, 2) AS step_over_mean_pct,
  CASE WHEN m.st_sd > 0 THEN round((st.ns - m.st_mean) / m.st_sd, 3) END
    AS step_z,
  round(bz.ns / 1e6, 3) AS busy_ms,
  round(100.0 * (bz.ns - m.bz_mean) / m.bz_mean, 2) AS busy_over_mean_pct,
  CASE WHEN m.bz_sd > 0 THEN round((bz.ns - m.bz_mean) / m.bz_sd, 3) END
    AS busy_z,
  -- + 0.0: a tiny negative offset prints 0, not -0
  round((SELECT offset_ns FROM rank_clock k WHERE k.run_id = :run
          AND k.rank = r.rank) / 1e6, 3) + 0.0 AS clock_ms,
  coalesce(late.n, 0) AS late_collectives,
  round(coalesce(late.ns, 0) / 1e6, 3) AS late_ms,
  round(coalesce(late.wait_ns, 0) / 1e6, 3) AS waited_for_ms,
  CASE WHEN (SELECT count(*) FROM decisive) > 0
    THEN round(100.0 * coalesce(late.n, 0) / (SELECT count(*) FROM decisive),
               2) END AS late_pct,
  CASE WHEN (SELECT ns FROM span) > 0
    THEN round(100.0 * coalesce(late.wait_ns, 0) / (SELECT ns FROM span), 2)
  END AS lost_pct,
  CASE WHEN (SELECT ns FROM span) > 0
        AND 100.0 * coalesce(late.wait_ns, 0) / (SELECT ns FROM span)
            > th.lost_pct
       THEN 1 ELSE 0 END AS straggler,
  round(st.ns / (SELECT max(ns) FROM st), 4) AS step_bar,
  (SELECT group_concat(v, ',') FROM
     (SELECT round(dur / 1e6, 3) AS v FROM step
      WHERE run_id = :run AND rank = r.rank ORDER BY ts)) AS step_spark
FROM ranks r CROSS JOIN m CROSS JOIN th
LEFT JOIN st ON st.rank = r.rank
LEFT JOIN bz ON bz.rank = r.rank
LEFT JOIN late ON late.rank = r.rank
ORDER BY r.rank;
