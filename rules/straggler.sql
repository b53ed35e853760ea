-- name: straggler
-- description: The ranks the others wait for at the collectives, on the
-- description: common clock (each rank's clock offset estimated from the
-- description: collectives' end times: rank_clock).  For every collective
-- description: two or more ranks ran (same process group and sequence) the
-- description: rank that arrived last, when it arrived more than
-- description: min_spread_us after the first, made the others wait
-- description: (collective_late).  A rank is named when the others lost
-- description: more than lost_pct of their traced time (GPU, or the host's
-- description: for ranks without GPU work: rank_traced_span) waiting for it
-- description: over the run (high above high_pct), the ranks ranked by
-- description: the waiting they caused, with what the rank did before
-- description: those collectives: computing (more GPU work), stalled on
-- description: the host (GPU idle, the collective not launched yet) or
-- description: itself waiting (GPU idle with the collective queued).  GPU
-- description: busy time is never the criterion: a rank that waits inside
-- description: a collective looks busy.  Thresholds: advice_threshold
-- description: (straggler, ...), shared with rank-skew.
-- param: lost_pct:number>=0 =       the others' waiting / their traced time (rank_traced_span), % (empty: advice_threshold straggler.lost_pct)
-- param: high_pct:number>=0 =       above: severity high (empty: advice_threshold straggler.high_pct)
-- param: min_spread_us:number>=0 =  ties below this arrival spread, µs (empty: advice_threshold straggler.min_spread_us)
WITH th AS (
  SELECT coalesce(:lost_pct, (SELECT value FROM advice_threshold
           WHERE advice = 'straggler' AND name = 'lost_pct')) AS lost_pct,
    coalesce(:high_pct, (SELECT value FROM advice_threshold
           WHERE advice = 'straggler' AND name = 'high_pct')) AS high_pct,
    coalesce(:min_spread_us, (SELECT value FROM advice_threshold
           WHERE advice = 'straggler' AND name = 'min_spread_us'))
      AS min_spread_us
),
d AS (
  SELECT l.* FROM collective_late l CROSS JOIN th
  WHERE l.run_id = :run AND l.spread_ns > th.min_spread_us * 1e3
),
span AS (
  SELECT avg(span_ns) AS ns,
    CASE min(clock) WHEN 'gpu' THEN 'GPU' ELSE 'host' END AS what
  FROM rank_traced_span
  WHERE run_id = :run
    AND rank IN (SELECT rank FROM collective WHERE run_id = :run)
),
per AS (
  SELECT late_rank AS rank, count(*) AS n_late, sum(waited_ns) AS waited,
    max(spread_ns) AS max_spread, sum(compute_excess_ns) AS comp_x,
    sum(host_excess_ns) AS host_x, sum(queued_excess_ns) AS queued_x
  FROM d GROUP BY late_rank
),
ranked AS (
  SELECT per.*, 100.0 * per.waited / span.ns AS lost, span.what,
    row_number() OVER (ORDER BY per.waited DESC, per.rank) AS pos,
    CASE
      WHEN max(per.comp_x, per.host_x, per.queued_x) <= 0 THEN 'none'
      WHEN per.comp_x >= per.host_x AND per.comp_x >= per.queued_x
        THEN 'compute'
      WHEN per.host_x >= per.queued_x THEN 'host'
      ELSE 'queued' END AS cause
  FROM per CROSS JOIN span WHERE span.ns > 0
),
clk AS (
  SELECT max(abs(offset_ns)) AS max_ns,
    (SELECT rank FROM rank_clock WHERE run_id = :run
     ORDER BY abs(offset_ns) DESC, rank LIMIT 1) AS rank
  FROM rank_clock WHERE run_id = :run
)
SELECT CASE WHEN r.lost > th.high_pct THEN 'high' ELSE 'medium' END
    AS severity,
  'straggler' AS rule,
  printf('rank %d made the other ranks wait %.3f ms (%.1f %% of their'
         || ' traced ' || r.what || ' time): it arrived last at %d of %d collectives, up'
         || ' to %.3f ms after the first; before them it was %s (against the'
         || ' other ranks: GPU work %+.3f ms, host-side GPU idle %+.3f ms,'
         || ' GPU idle with the collective queued %+.3f ms)%s%s',
         r.rank, r.waited / 1e6, r.lost, r.n_late,
         (SELECT count(*) FROM d), r.max_spread / 1e6,
         CASE r.cause WHEN 'compute' THEN 'computing'
                      WHEN 'host' THEN 'stalled on the host'
                      WHEN 'queued' THEN 'itself waiting'
                      ELSE 'not behind in its GPU timeline' END,
         r.comp_x / 1e6, r.host_x / 1e6, r.queued_x / 1e6,
         coalesce((SELECT '; next: ' || group_concat(printf('rank %d %.3f ms',
                     n.rank, n.waited / 1e6), ', ')
                   FROM (SELECT * FROM ranked n2 WHERE n2.pos > r.pos
                         ORDER BY n2.pos LIMIT 2) n), ''),
         CASE WHEN clk.max_ns > th.min_spread_us * 1e3
              THEN printf('; clocks aligned first (rank %d by %+.3f ms, see'
                          || ' profan show)', clk.rank,
                          (SELECT offset_ns FROM rank_clock
                           WHERE run_id = :run AND rank = clk.rank) / 1e6)
              ELSE '' END)
    AS message,
  round(r.lost, 2) AS value,
  CASE WHEN r.lost > th.high_pct THEN th.high_pct ELSE th.lost_pct END
    AS threshold,
  CASE r.cause
    WHEN 'compute' THEN 'load imbalance: that rank ran more GPU work before'
      || ' the collectives (uneven shapes, sharding or embedding tables);'
      || ' the other ranks'' extra time is waiting'
    WHEN 'host' THEN 'host side: that rank''s GPU waited for its CPU'
      || ' before the collectives (data loading, Python/CPU work, launch'
      || ' overhead, a noisy neighbour); the other ranks'' extra time is'
      || ' waiting'
    WHEN 'queued' THEN 'a dependency: that rank''s GPU had the collective'
      || ' queued but waited on another stream, event or device first (an'
      || ' earlier collective, a copy, a peer); look at what it waited for'
    ELSE 'the delay is not in the GPU timeline before the collectives'
      || ' (launch or clock); the other ranks'' extra time is waiting'
  END AS hint
FROM ranked r CROSS JOIN th LEFT JOIN clk
WHERE r.lost > th.lost_pct
ORDER BY r.pos;
