-- name: straggler
-- description: The rank the others wait for at the collectives: for every
-- description: collective all its ranks ran (same process group and
-- description: sequence), the rank that started it last, when it started
-- description: more than min_spread_us after the first.  A rank that was
-- description: last at more than late_pct % of those collectives is named,
-- description: with how long the other ranks waited for it and what it
-- description: did before (its GPU idle or compute time in the window since
-- description: its previous collective, against the others' mean).  GPU
-- description: busy time is never the criterion: a rank that waits inside
-- description: a collective looks busy.  Thresholds: advice_threshold
-- description: (straggler, ...), shared with rank-skew and collective-skew.
-- param: late_pct:number>=0 =       share of the collectives, % (empty: advice_threshold straggler.late_pct)
-- param: min_spread_us:number>=0 =  ties below this spread, µs (empty: advice_threshold straggler.min_spread_us)
WITH th AS (
  SELECT coalesce(:late_pct, (SELECT value FROM advice_threshold
           WHERE advice = 'straggler' AND name = 'late_pct')) AS late_pct,
    coalesce(:min_spread_us, (SELECT value FROM advice_threshold
           WHERE advice = 'straggler' AND name = 'min_spread_us'))
      AS min_spread_us
),
c AS (
  SELECT coalesce(x.pg_name, '') AS pg, x.seq, x.rank, x.ts, w.compute_ns,
    w.idle_ns
  FROM collective x LEFT JOIN collective_window w ON w.collective_id = x.id
  WHERE x.run_id = :run
),
g AS (
  SELECT c.pg, c.seq, count(*) AS n, min(c.ts) AS t0, max(c.ts) AS t1
  FROM c GROUP BY c.pg, c.seq
  HAVING count(*) > 1
),
decisive AS (
  SELECT g.* FROM g CROSS JOIN th WHERE g.t1 - g.t0 > th.min_spread_us * 1e3
),
late AS (
  SELECT d.pg, d.seq, d.n, d.t1 - d.t0 AS spread,
    (SELECT c.rank FROM c WHERE c.pg = d.pg AND c.seq = d.seq
     ORDER BY c.ts DESC, c.rank LIMIT 1) AS rank,
    (SELECT sum(d.t1 - c.ts) FROM c WHERE c.pg = d.pg AND c.seq = d.seq)
      AS wait_sum
  FROM decisive d
),
before AS (
  SELECT l.rank, l.pg, l.seq,
    (SELECT c.idle_ns FROM c WHERE c.pg = l.pg AND c.seq = l.seq
       AND c.rank = l.rank) AS idle_self,
    (SELECT c.compute_ns FROM c WHERE c.pg = l.pg AND c.seq = l.seq
       AND c.rank = l.rank) AS comp_self,
    (SELECT avg(c.idle_ns) FROM c WHERE c.pg = l.pg AND c.seq = l.seq
       AND c.rank <> l.rank) AS idle_others,
    (SELECT avg(c.compute_ns) FROM c WHERE c.pg = l.pg AND c.seq = l.seq
       AND c.rank <> l.rank) AS comp_others
  FROM late l
),
per AS (
  SELECT l.rank, count(*) AS n_late,
    sum(1.0 * l.wait_sum / (l.n - 1)) AS wait_ns,
    max(l.spread) AS max_spread,
    (SELECT sum(b.idle_self - b.idle_others) FROM before b
     WHERE b.rank = l.rank) AS idle_x,
    (SELECT sum(b.comp_self - b.comp_others) FROM before b
     WHERE b.rank = l.rank) AS comp_x
  FROM late l GROUP BY l.rank
)
SELECT 'high' AS severity, 'straggler' AS rule,
  printf('rank %d arrived last in %d of %d collectives; the other ranks'
         || ' waited %.3f ms for it (mean per rank; up to %.3f ms at one'
         || ' collective); before them its GPU was idle %+.3f ms and ran'
         || ' %+.3f ms of compute against the other ranks',
         per.rank, per.n_late, (SELECT count(*) FROM decisive),
         per.wait_ns / 1e6, per.max_spread / 1e6,
         coalesce(per.idle_x, 0) / 1e6, coalesce(per.comp_x, 0) / 1e6)
    AS message,
  round(100.0 * per.n_late / (SELECT count(*) FROM decisive), 2) AS value,
  th.late_pct AS threshold,
  CASE
    WHEN coalesce(per.idle_x, 0) >= coalesce(per.comp_x, 0)
         AND coalesce(per.idle_x, 0) > 0
    THEN 'host side: that rank''s GPU waited for its CPU before the'
         || ' collectives (data loading, Python/CPU work, launch overhead,'
         || ' a noisy neighbour); the other ranks'' extra time is waiting'
    WHEN coalesce(per.comp_x, 0) > 0
    THEN 'load imbalance: that rank ran more GPU work before the'
         || ' collectives (uneven shapes, sharding or embedding tables);'
         || ' the other ranks'' extra time is waiting'
    ELSE 'the delay is not in the GPU timeline before the collectives'
         || ' (launch or clock); the other ranks'' extra time is waiting'
  END AS hint
FROM per CROSS JOIN th
WHERE 100.0 * per.n_late / (SELECT count(*) FROM decisive) > th.late_pct
ORDER BY per.rank;
