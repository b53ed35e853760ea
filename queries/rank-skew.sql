-- name: rank-skew
-- description: Per-rank step time and GPU busy time against the mean over
-- description: ranks, with z-scores; a rank is a straggler when either is
-- description: more than threshold_pct over the mean or its z-score is
-- description: above z.  Also how often the rank was the last to start a
-- description: collective (same process group and sequence on every rank).
-- param: threshold_pct = 10  straggler threshold over the mean, %
-- param: z = 2            straggler z-score threshold
-- column: rank             rank
-- column: steps            profiled steps of the rank
-- column: step_ms          mean step duration, ms
-- column: step_over_mean_pct  step_ms over the mean of the ranks, %
-- column: step_z           z-score of step_ms over the ranks
-- column: busy_ms          GPU busy time (union of kernels, memcpy, memset), ms
-- column: busy_over_mean_pct  busy_ms over the mean of the ranks, %
-- column: busy_z           z-score of busy_ms
-- column: late_collectives collectives this rank started last
-- column: late_ms          summed lateness of those starts behind the earliest rank, ms
-- column: straggler        1 when step or busy time is over a threshold
-- column: step_bar         step_ms / the slowest rank's step_ms, as a bar
-- column: step_spark       the rank's step durations in ms, in time order
WITH ranks AS (
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
late AS (
  SELECT c.rank, count(*) AS n, sum(c.ts - s.t0) AS ns
  FROM collective c JOIN seqs s ON s.pg = coalesce(c.pg_name, '')
    AND s.seq = c.seq
  WHERE c.run_id = :run AND s.n > 1 AND c.ts = s.t1 AND s.t1 > s.t0
  GROUP BY c.rank
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
  CASE WHEN st.ns > m.st_mean * (1 + :threshold_pct / 100.0)
         OR bz.ns > m.bz_mean * (1 + :threshold_pct / 100.0)
         OR (m.st_sd > 0 AND (st.ns - m.st_mean) / m.st_sd > :z)
         OR (m.bz_sd > 0 AND (bz.ns - m.bz_mean) / m.bz_sd > :z)
       THEN 1 ELSE 0 END AS straggler,
  round(st.ns / (SELECT max(ns) FROM st), 4) AS step_bar,
  (SELECT group_concat(v, ',') FROM
     (SELECT round(dur / 1e6, 3) AS v FROM step
      WHERE run_id = :run AND rank = r.rank ORDER BY ts)) AS step_spark
FROM ranks r CROSS JOIN m
LEFT JOIN st ON st.rank = r.rank
LEFT JOIN bz ON bz.rank = r.rank
LEFT JOIN late ON late.rank = r.rank
ORDER BY r.rank;
