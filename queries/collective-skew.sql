-- name: collective-skew
-- description: Late-arriving ranks per collective: the same collective
-- description: (process group and sequence number within it) on every
-- description: rank, with the spread of kernel start times across ranks
-- description: and the rank that started last (the one the others waited
-- description: for), how long the others waited for it, and whether the
-- description: spread is above the straggler threshold (advice_threshold
-- description: straggler.min_spread_us: below it the starts are a tie and
-- description: the straggler rule counts no late rank).  Needs one trace
-- description: per rank of a common time base.
-- param: min_spread_us:number>=0 = 0  only collectives whose start spread exceeds this, µs
-- param: limit:int>=0 = 50       rows to show, largest spread first
-- column: pg_name          process group ('' when the trace does not say)
-- column: seq              0-based order of the collective in its group per rank
-- column: op               collective
-- column: bytes            message bytes (from the late rank)
-- column: ranks            ranks that ran it
-- column: spread_us        last start minus first start, µs
-- column: late_rank        rank that started last
-- column: early_rank       rank that started first
-- column: late_dur_us      kernel time of the late rank, µs
-- column: max_dur_us       longest kernel time (usually the early rank, waiting), µs
-- column: end_spread_us    last end minus first end, µs
-- column: waited_us        mean over the other ranks of the late start minus theirs, µs
-- column: decisive         1 when spread_us is above straggler.min_spread_us (a late rank counts)
WITH c AS (
  SELECT coalesce(pg_name, '') AS pg, seq, rank, op, bytes, ts, dur,
    row_number() OVER (PARTITION BY coalesce(pg_name, ''), seq
                       ORDER BY ts DESC, rank) AS late_rn,
    row_number() OVER (PARTITION BY coalesce(pg_name, ''), seq
                       ORDER BY ts, rank) AS early_rn,
    max(ts) OVER (PARTITION BY coalesce(pg_name, ''), seq) - ts AS behind
  FROM collective WHERE run_id = :run
)
SELECT pg AS pg_name, seq,
  max(CASE WHEN late_rn = 1 THEN op END) AS op,
  max(CASE WHEN late_rn = 1 THEN bytes END) AS bytes,
  count(*) AS ranks,
  round((max(ts) - min(ts)) / 1e3, 3) AS spread_us,
  max(CASE WHEN late_rn = 1 THEN rank END) AS late_rank,
  max(CASE WHEN early_rn = 1 THEN rank END) AS early_rank,
  round(max(CASE WHEN late_rn = 1 THEN dur END) / 1e3, 3) AS late_dur_us,
  round(max(dur) / 1e3, 3) AS max_dur_us,
  round((max(ts + dur) - min(ts + dur)) / 1e3, 3) AS end_spread_us,
  round(sum(behind) / 1e3 / (count(*) - 1), 3) AS waited_us,
  CASE WHEN (max(ts) - min(ts)) / 1e3 > (SELECT value FROM advice_threshold
         WHERE advice = 'straggler' AND name = 'min_spread_us')
       THEN 1 ELSE 0 END AS decisive
FROM c
GROUP BY pg, seq
HAVING count(*) > 1 AND (max(ts) - min(ts)) / 1e3 >= :min_spread_us
ORDER BY max(ts) - min(ts) DESC, pg, seq
LIMIT :limit;
