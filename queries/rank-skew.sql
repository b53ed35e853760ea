-- name: rank-skew
-- description: Per-rank step time and GPU busy time against the mean over
-- description: ranks (z-scores), and how often the rank started a
-- description: collective last (same process group and sequence on every
-- description: rank, start spread above min_spread_us).  straggler is 1
-- description: for the rank the straggler rule names: last at more than
-- description: late_pct % of those collectives.  Step and busy time are
-- description: shown, never the criterion: a rank waiting inside a
-- description: collective looks busy.  Thresholds: advice_threshold
-- description: (straggler, ...), shared with the straggler rule.
-- param: late_pct:number>=0 =       share of the collectives, % (empty: advice_threshold straggler.late_pct)
-- param: min_spread_us:number>=0 =  ties below this spread, µs (empty: advice_threshold straggler.min_spread_us)
-- column: rank             rank
-- column: steps            profiled steps of the rank
-- column: step_ms          mean step duration, ms
-- column: step_over_mean_pct  step_ms over the mean of the ranks, %
-- column: step_z           z-score of step_ms over the ranks
-- column: busy_ms          GPU busy time (union of kernels, memcpy, memset), ms
-- column: busy_over_mean_pct  busy_ms over the mean of the ranks, %
-- column: busy_z           z-score of busy_ms
-- column: late_collectives  collectives this rank started last
-- column: late_ms          summed lateness of those starts behind the earliest rank, ms
-- column: waited_for_ms    summed mean wait of the other ranks at those collectives, ms
-- column: late_pct         late_collectives / collectives with a late rank, %
-- column: straggler        1 when late_pct is above the straggler threshold
-- column: step_bar         step_ms / the slowest rank's step_ms, as a bar
-- column: step_spark       the rank's step durations in ms, in time order
WITH th AS (
  SELECT coalesce(:late_pct, (SELECT value FROM advice_threshold
           WHERE advice = 'straggler' AND name = 'late_pct')) AS late_pct,
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
seqs AS (
  SELECT coalesce(pg_name, '') AS pg, seq, min(ts) AS t0, max(ts) AS t1,
    count(DISTINCT rank) AS n
  FROM collective WHERE run_id = :run GROUP BY 1, 2
),
decisive AS (
  SELECT s.* FROM seqs s CROSS JOIN th
  WHERE s.n > 1 AND s.t1 - s.t0 > th.min_spread_us * 1e3
),
lastr AS (
  SELECT d.pg, d.seq, d.n, d.t0, d.t1,
    (SELECT c.rank FROM collective c WHERE c.run_id = :run
       AND coalesce(c.pg_name, '') = d.pg AND c.seq = d.seq
     ORDER BY c.ts DESC, c.rank LIMIT 1) AS rank,
    (SELECT sum(d.t1 - c.ts) FROM collective c WHERE c.run_id = :run
       AND coalesce(c.pg_name, '') = d.pg AND c.seq = d.seq) AS wait_sum
  FROM decisive d
),
late AS (
  SELECT rank, count(*) AS n, sum(t1 - t0) AS ns,
    sum(1.0 * wait_sum / (n - 1)) AS wait_ns
  FROM lastr GROUP BY rank
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
  coalesce(late.n, 0) AS late_collectives,
  round(coalesce(late.ns, 0) / 1e6, 3) AS late_ms,
  round(coalesce(late.wait_ns, 0) / 1e6, 3) AS waited_for_ms,
  CASE WHEN (SELECT count(*) FROM decisive) > 0
    THEN round(100.0 * coalesce(late.n, 0) / (SELECT count(*) FROM decisive),
               2) END AS late_pct,
  CASE WHEN (SELECT count(*) FROM decisive) > 0
        AND 100.0 * coalesce(late.n, 0) / (SELECT count(*) FROM decisive)
            > th.late_pct
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
