-- 050-straggler-clock.sql — stragglers on skewed clocks (issue 31): each
-- rank's clock offset, every collective's arrival on the common clock,
-- the time its kernel waited for the last rank, and what the rank's GPU
-- did before it.  Written at ingest by derive_comm.c (rank_clock.c
-- estimates the offsets); the straggler rule, rank-skew, collective-skew,
-- exposed-comm and `profan show` read them.

-- The clock offset of each rank, estimated from the end times of the
-- collectives it shares with other ranks (all_reduce, all_gather,
-- reduce_scatter, all_to_all: they end together on every rank of the
-- group, whoever arrived last).  Subtract offset_ns from the rank's
-- times to put them on the run's common clock (the median rank's).
-- Only runs with collectives shared by two or more ranks have rows.
CREATE TABLE rank_clock(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  offset_ns INTEGER NOT NULL,      -- the rank's clock minus the common one
  n_collectives INTEGER NOT NULL,  -- shared collectives the estimate used
  spread_ns INTEGER NOT NULL,      -- median |end - group's median end|
                                   -- after alignment: how well it fits
  PRIMARY KEY(run_id, rank)
) WITHOUT ROWID;

-- collective_window (012) gains the straggler measures of each
-- collective of each rank:
--   arrival_ns       the kernel's start on the common clock (ts minus the
--                    rank's offset)
--   wait_ns          how long the kernel waited for the last rank of its
--                    group to arrive (last arrival - arrival, at most the
--                    kernel's duration; 0 for the last rank)
--   exposed_wait_ns  the part of that wait no compute kernel of the rank
--                    overlapped: exposed communication that is waiting
--   queued_ns        GPU idle right before the collective although its
--                    kernel had been launched (the launch call had
--                    returned): the GPU waited on something else; the
--                    rest of idle_ns is the host not feeding the GPU
-- compute_ns now counts all GPU work of the rank that ended in the window
-- (kernels that are not communication, memcpy, memset).
ALTER TABLE collective_window ADD COLUMN arrival_ns INTEGER;
ALTER TABLE collective_window ADD COLUMN wait_ns INTEGER;
ALTER TABLE collective_window ADD COLUMN exposed_wait_ns INTEGER;
ALTER TABLE collective_window ADD COLUMN queued_ns INTEGER;

-- Runs ingested before this file: their clocks are taken as aligned and
-- every wait as exposed (re-ingest for the estimate and the overlap).
UPDATE collective_window SET
  arrival_ns = (SELECT c.ts FROM collective c
                WHERE c.id = collective_window.collective_id),
  queued_ns = 0;
UPDATE collective_window SET wait_ns = (
  SELECT max(0, min(c.dur, (SELECT max(c2.ts) FROM collective c2
                            WHERE c2.run_id = c.run_id
                              AND coalesce(c2.pg_name, '')
                                  = coalesce(c.pg_name, '')
                              AND c2.seq = c.seq) - c.ts))
  FROM collective c WHERE c.id = collective_window.collective_id);
UPDATE collective_window SET exposed_wait_ns = wait_ns;

-- Every collective that two or more ranks ran (same process group and
-- sequence number), on the common clock: its ranks, the spread of their
-- arrivals, the rank that arrived last, how long the others waited for it
-- (mean over the other ranks of their wait_ns) and, for the window before
-- the collective, the late rank's GPU work, host-side idle and queued
-- idle against the other ranks' mean.  The straggler rule, rank-skew and
-- collective-skew read this view; the threshold on the spread
-- (advice_threshold straggler.min_spread_us) is theirs to apply.
CREATE VIEW collective_late AS
WITH a AS (
  SELECT c.run_id, coalesce(c.pg_name, '') AS pg, c.seq, c.rank, c.op,
    c.bytes, c.ts, c.dur, w.arrival_ns AS arrival,
    w.arrival_ns + c.dur AS arrival_end, w.wait_ns,
    w.compute_ns, w.idle_ns - w.queued_ns AS host_ns, w.queued_ns,
    count(*) OVER g AS n,
    max(w.arrival_ns) OVER g AS last_arrival,
    min(w.arrival_ns) OVER g AS first_arrival,
    row_number() OVER (PARTITION BY c.run_id, coalesce(c.pg_name, ''), c.seq
                       ORDER BY w.arrival_ns DESC, c.rank) AS late_rn,
    row_number() OVER (PARTITION BY c.run_id, coalesce(c.pg_name, ''), c.seq
                       ORDER BY w.arrival_ns, c.rank) AS early_rn
  FROM collective c JOIN collective_window w ON w.collective_id = c.id
  WINDOW g AS (PARTITION BY c.run_id, coalesce(c.pg_name, ''), c.seq)
)
SELECT run_id, pg, seq, n,
  max(CASE WHEN late_rn = 1 THEN op END) AS op,
  max(CASE WHEN late_rn = 1 THEN bytes END) AS bytes,
  max(last_arrival) - max(first_arrival) AS spread_ns,
  -- the ends on the common clock agree when the clocks are aligned
  max(arrival_end) - min(arrival_end) AS end_spread_ns,
  max(CASE WHEN late_rn = 1 THEN rank END) AS late_rank,
  max(CASE WHEN early_rn = 1 THEN rank END) AS early_rank,
  -- the others' mean wait for the last arrival (their kernels' time)
  1.0 * sum(CASE WHEN late_rn > 1 THEN wait_ns ELSE 0 END) / (n - 1)
    AS waited_ns,
  max(CASE WHEN late_rn = 1 THEN dur END) AS late_dur_ns,
  max(dur) AS max_dur_ns,
  -- what the late rank's GPU did before the collective, minus the
  -- other ranks' mean
  max(CASE WHEN late_rn = 1 THEN compute_ns END)
    - 1.0 * sum(CASE WHEN late_rn > 1 THEN compute_ns ELSE 0 END) / (n - 1)
    AS compute_excess_ns,
  max(CASE WHEN late_rn = 1 THEN host_ns END)
    - 1.0 * sum(CASE WHEN late_rn > 1 THEN host_ns ELSE 0 END) / (n - 1)
    AS host_excess_ns,
  max(CASE WHEN late_rn = 1 THEN queued_ns END)
    - 1.0 * sum(CASE WHEN late_rn > 1 THEN queued_ns ELSE 0 END) / (n - 1)
    AS queued_excess_ns
FROM a
WHERE n > 1
GROUP BY run_id, pg, seq;

-- The time each rank's traces cover on its GPUs (first activity to last
-- end, summed over its devices): what the straggler rule's lost share
-- and exposed-comm's share are shares of.
CREATE VIEW rank_gpu_span AS
SELECT run_id, rank, sum(last_end - first_ts) AS span_ns
FROM gpu_busy GROUP BY run_id, rank;

-- The straggler thresholds: the time the other ranks lost waiting for a
-- rank, as a share of their traced GPU time, decides (no longer the share
-- of collectives it was last at: one 0.1 ms late arrival was "1 of 1").
DELETE FROM advice_threshold WHERE advice = 'straggler' AND name = 'late_pct';
UPDATE advice_threshold
   SET used_by = 'rule straggler, queries rank-skew and collective-skew'
 WHERE advice = 'straggler' AND name = 'min_spread_us';
INSERT INTO advice_threshold VALUES
  ('straggler', 'lost_pct', 10, '%',
   'rule straggler, query rank-skew (straggler column), HTML steps section',
   'a rank is named when the other ranks lost more than this share of their'
   || ' traced GPU time waiting for it at collectives'),
  ('straggler', 'high_pct', 25, '%',
   'rule straggler (severity high above it)',
   'the lost share above which the straggler finding is high severity');

INSERT INTO table_role(name, role, input_kind, summary, description) VALUES
  ('rank_clock', 'derived_run', NULL, 0,
   'each rank''s clock offset from the run''s common clock');
