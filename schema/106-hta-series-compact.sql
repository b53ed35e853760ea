-- 106-hta-series-compact.sql — the stored HTA series of schema 094 in a
-- third of the bytes and with the per-stream statistics written by the
-- sweep (issue 35: 094's rows cost 22.8 MB at 256 ranks and 100 ms of
-- ingest on param-linear x3; queue-length still ranked every change
-- point of a large rank in a window, 1.0-1.16 s of CPU at x10, and
-- idle-breakdown every idle interval, 1.02 s on V100 x10).
--
-- hta_stream holds one row per (run, rank, device, stream) with the
-- rowid ranges of its idle intervals and queue change points, which are
-- rowid tables written in order, so a stream's rows are one range read
-- by its rowid (no key columns repeated on every row, no second index;
-- a change's time relative to the stream's first, 4-6 bytes, not 8),
-- and the numbers queue-length shows.  What a row can be joined to get
-- (the op's start, its launch call's start, the next change's time) is
-- no longer stored: the views hta_idle_interval and hta_queue_length
-- give it as before.  Derived tables: dropped here, refilled by ingest
-- or `profan rebuild`.

DROP VIEW hta_idle_interval;
DROP VIEW hta_queue_length;
DROP TABLE hta_idle_gap;
DROP TABLE hta_queue_point;

-- One row per stream with idle intervals or launch-queue changes.
-- idle_first..idle_first+idle_n-1: its hta_idle_gap rowids; queue_*: the
-- same for hta_queue_point and, over those change points (the columns of
-- the named query queue-length, kept as integers so the query's
-- arithmetic is the same as over the points): the sum and largest of the
-- lengths, the lengths at positions k and k+1 of the sorted lengths for
-- k = floor((changes-1) * p) (p50_lo, p50_hi, ...; hi NULL past the last),
-- the time-weighted area (sum of length x time to the next change), the
-- span (last - first change), the time at length 0 (NULL: the length was
-- never 0) and the time at the call's queue limit or more.
CREATE TABLE hta_stream(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  device INTEGER NOT NULL,         -- GPU ordinal (0 for a row without one)
  stream INTEGER NOT NULL,
  idle_first INTEGER,              -- hta_idle_gap rowid (NULL: no interval)
  idle_n INTEGER NOT NULL,
  queue_first INTEGER,             -- hta_queue_point rowid (NULL: none)
  queue_n INTEGER NOT NULL,        -- change points (queue-length: changes)
  queue_t0 INTEGER,                -- the first change's time
  queue_sum INTEGER, queue_max INTEGER,
  p50_lo INTEGER, p50_hi INTEGER,
  p75_lo INTEGER, p75_hi INTEGER,
  p95_lo INTEGER, p95_hi INTEGER,
  queue_area INTEGER, queue_span INTEGER,
  queue_empty_ns INTEGER, queue_blocked_ns INTEGER,
  PRIMARY KEY(run_id, rank, device, stream)
) WITHOUT ROWID;

-- One row per idle interval of a stream (094's definition: the gap
-- before a GPU op that starts after every earlier op of its stream
-- ended); a stream's rows are its range of hta_stream, those without a
-- host wait first, each part in increasing gap_ns, so the intervals of
-- one cause are consecutive in gap order whatever the threshold.
CREATE TABLE hta_idle_gap(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL,
  host_wait INTEGER NOT NULL,      -- 1: the launch came after the idle start
  gap_ns INTEGER NOT NULL,         -- the op's start - the latest end before
  mem INTEGER NOT NULL,            -- 0: row_id is a kernel, 1: a gpu_mem_op
  row_id INTEGER NOT NULL          -- the op after the gap
);

-- One row per change of a stream's launch queue (094's definition), in
-- the stream's change order, within its range of hta_stream.
-- queue_full: the limit of the call that made the change (NULL: none
-- known); ops: that call's ops on the stream.
CREATE TABLE hta_queue_point(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL,
  dt INTEGER NOT NULL,             -- the change's time - hta_stream.queue_t0
  queue_length INTEGER NOT NULL,
  queue_full INTEGER,
  ops INTEGER NOT NULL
);

INSERT INTO table_role(name, role, input_kind, summary, description) VALUES
  ('hta_stream', 'derived_run', NULL, 0,
   'per GPU stream: where its idle intervals and queue changes are, and'
   || ' the launch-queue statistics');

CREATE VIEW hta_idle_interval AS
SELECT s.run_id, s.rank, s.device, s.stream,
  CASE WHEN i.mem THEN m.kind ELSE 'kernel' END AS kind, i.row_id,
  coalesce(k.name_id, m.name_id) AS name_id, coalesce(k.step, m.step) AS step,
  coalesce(k.ts, m.ts) - i.gap_ns AS prev_end, coalesce(k.ts, m.ts) AS ts,
  i.gap_ns, r.ts AS launch_ts,
  CASE WHEN i.host_wait THEN 'host_wait'
       WHEN i.gap_ns < (SELECT value FROM hta_setting
                        WHERE name = 'kernel_wait_ns') THEN 'kernel_wait'
       ELSE 'other' END AS category
FROM hta_stream s
JOIN hta_idle_gap i ON i.id BETWEEN s.idle_first
                                AND s.idle_first + s.idle_n - 1
LEFT JOIN kernel k ON NOT i.mem AND k.id = i.row_id
LEFT JOIN gpu_mem_op m ON i.mem AND m.id = i.row_id
LEFT JOIN runtime_call r ON r.id = coalesce(k.runtime_id, m.runtime_id);

CREATE VIEW hta_queue_length AS
SELECT s.run_id, s.rank, s.device, s.stream, s.queue_t0 + p.dt AS ts,
  p.queue_length,
  CASE WHEN p.id < s.queue_first + s.queue_n - 1
       THEN s.queue_t0 + (SELECT n.dt FROM hta_queue_point n
                          WHERE n.id = p.id + 1)
  END AS next_ts,
  p.queue_full, p.ops
FROM hta_stream s
JOIN hta_queue_point p ON p.id BETWEEN s.queue_first
                                   AND s.queue_first + s.queue_n - 1;
