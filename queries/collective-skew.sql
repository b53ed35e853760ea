-- name: collective-skew
-- description: Late-arriving ranks per collective: the same collective
-- description: (process group and sequence number within it) on two or
-- description: more ranks, on the common clock (each rank's clock offset
-- description: from rank_clock taken out): the spread of the arrivals,
-- description: the rank that arrived last (the one the others waited
-- description: for), how long the others waited for it, the spread of the
-- description: ends (near zero once the clocks are aligned), and whether
-- description: the spread is above the straggler threshold
-- description: (advice_threshold straggler.min_spread_us: below it the
-- description: arrivals are a tie and the straggler rule counts no late
-- description: rank).  Rows of collective_late.
-- param: min_spread_us:number>=0 = 0  only collectives whose arrival spread exceeds this, µs
-- param: limit:int>=0 = 50       rows to show, largest spread first
-- column: pg_name          process group ('' when the trace does not say)
-- column: seq              0-based order of the collective in its group per rank
-- column: op               collective
-- column: bytes            message bytes (from the late rank)
-- column: ranks            ranks that ran it
-- column: spread_us        last arrival minus first arrival (common clock), µs
-- column: late_rank        rank that arrived last
-- column: early_rank       rank that arrived first
-- column: late_dur_us      kernel time of the late rank, µs
-- column: max_dur_us       longest kernel time (usually the early rank, waiting), µs
-- column: end_spread_us    last end minus first end (common clock), µs
-- column: waited_us        mean over the other ranks of their kernels' wait for the late rank, µs
-- column: decisive         1 when spread_us is above straggler.min_spread_us (a late rank counts)
SELECT pg AS pg_name, seq, op, bytes, n AS ranks,
  round(spread_ns / 1e3, 3) AS spread_us,
  late_rank, early_rank,
  round(late_dur_ns / 1e3, 3) AS late_dur_us,
  round(max_dur_ns / 1e3, 3) AS max_dur_us,
  round(end_spread_ns / 1e3, 3) AS end_spread_us,
  round(waited_ns / 1e3, 3) AS waited_us,
  CASE WHEN spread_ns / 1e3 > (SELECT value FROM advice_threshold
         WHERE advice = 'straggler' AND name = 'min_spread_us')
       THEN 1 ELSE 0 END AS decisive
FROM collective_late
WHERE run_id = :run AND spread_ns / 1e3 >= :min_spread_us
ORDER BY spread_ns DESC, pg, seq
LIMIT :limit;
