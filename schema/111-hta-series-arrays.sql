-- 111-hta-series-arrays.sql — a stream's idle intervals and launch-queue
-- change points as two JSON arrays on its hta_stream row instead of one
-- row each in hta_idle_gap and hta_queue_point (issue 29: those rows,
-- about 3,000 instructions each through the batched INSERT, were 99 of
-- the 206 M instructions of the HTA pass on param-linear and most of why
-- an ingest cost 10-17 % more than at ed5f057; issue 35: the arrays take
-- 12-14 % fewer bytes than the rows did).  The views hta_idle_interval
-- and hta_queue_length give the same rows and columns as before, with
-- the built-in json_each (no custom function: they work in the stock
-- sqlite3 shell).  Derived tables: dropped here, refilled by ingest or
-- `profan rebuild`.

DROP VIEW hta_idle_interval;
DROP VIEW hta_queue_length;
DROP TABLE hta_idle_gap;
DROP TABLE hta_queue_point;
DROP TABLE hta_stream;
DELETE FROM table_role WHERE name IN ('hta_idle_gap', 'hta_queue_point');

-- One row per stream with idle intervals or launch-queue changes.
--
-- idle_gaps: its idle intervals (094's definition: the gap before a GPU
-- op that starts after every earlier op of its stream ended), one
-- [host_wait, gap_ns, mem, row_id] each: host_wait 1 when the launch came
-- after the idle start, gap_ns = the op's start - the latest end before
-- it, row_id the op after the gap (mem 0: a kernel, 1: a gpu_mem_op);
-- those without a host wait first, each part in increasing gap_ns, so
-- the intervals of one cause are consecutive in gap order whatever the
-- threshold (element k of the array: json_each's key k).
--
-- queue_points: its launch-queue changes (094's definition) in change
-- order, one [dt, queue_length, queue_full, ops] each: dt = the change's
-- time - the previous change's (0 for the first, at queue_t0);
-- queue_full the limit of the call that made the change (null: none
-- known), ops that call's ops on the stream.
--
-- The other queue_* columns are over those change points (the columns of
-- the named query queue-length, kept as integers so the query's
-- arithmetic is the same as over the points): the sum and largest of the
-- lengths, the lengths at positions k and k+1 of the sorted lengths for
-- k = floor((changes-1) * p) (p50_lo, p50_hi, ...; hi NULL past the last),
-- the time-weighted area (sum of length x time to the next change), the
-- span (last - first change), the time at length 0 (NULL: the length was
-- never 0) and the time at the call's queue limit or more.  The arrays
-- are the last columns: the queue-length query reads the numbers before
-- them.
CREATE TABLE hta_stream(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  device INTEGER NOT NULL,         -- GPU ordinal (0 for a row without one)
  stream INTEGER NOT NULL,
  idle_n INTEGER NOT NULL,         -- idle intervals (elements of idle_gaps)
  queue_n INTEGER NOT NULL,        -- change points (queue-length: changes)
  queue_t0 INTEGER,                -- the first change's time
  queue_sum INTEGER, queue_max INTEGER,
  p50_lo INTEGER, p50_hi INTEGER,
  p75_lo INTEGER, p75_hi INTEGER,
  p95_lo INTEGER, p95_hi INTEGER,
  queue_area INTEGER, queue_span INTEGER,
  queue_empty_ns INTEGER, queue_blocked_ns INTEGER,
  idle_gaps TEXT NOT NULL,         -- JSON array, '[]': no interval
  queue_points TEXT NOT NULL,      -- JSON array, '[]': no change
  PRIMARY KEY(run_id, rank, device, stream)
) WITHOUT ROWID;

UPDATE table_role SET description =
  'per GPU stream: its idle intervals and launch-queue changes (JSON'
  || ' arrays; views hta_idle_interval, hta_queue_length) and the'
  || ' launch-queue statistics'
WHERE name = 'hta_stream';

CREATE VIEW hta_idle_interval AS
SELECT s.run_id, s.rank, s.device, s.stream,
  CASE WHEN i.value ->> 2 THEN m.kind ELSE 'kernel' END AS kind,
  i.value ->> 3 AS row_id,
  coalesce(k.name_id, m.name_id) AS name_id, coalesce(k.step, m.step) AS step,
  coalesce(k.ts, m.ts) - (i.value ->> 1) AS prev_end,
  coalesce(k.ts, m.ts) AS ts, i.value ->> 1 AS gap_ns, r.ts AS launch_ts,
  CASE WHEN i.value ->> 0 THEN 'host_wait'
       WHEN (i.value ->> 1) < (SELECT value FROM hta_setting
                               WHERE name = 'kernel_wait_ns')
         THEN 'kernel_wait'
       ELSE 'other' END AS category
FROM hta_stream s
JOIN json_each(s.idle_gaps) i
LEFT JOIN kernel k ON NOT (i.value ->> 2) AND k.id = (i.value ->> 3)
LEFT JOIN gpu_mem_op m ON (i.value ->> 2) AND m.id = (i.value ->> 3)
LEFT JOIN runtime_call r ON r.id = coalesce(k.runtime_id, m.runtime_id);

-- A change's time is queue_t0 plus the dt of every change up to it; the
-- next change's time adds the next dt (NULL after the last).
CREATE VIEW hta_queue_length AS
SELECT s.run_id, s.rank, s.device, s.stream,
  s.queue_t0 + sum(p.value ->> 0) OVER w AS ts,
  p.value ->> 1 AS queue_length,
  s.queue_t0 + sum(p.value ->> 0) OVER w + lead(p.value ->> 0) OVER w
    AS next_ts,
  p.value ->> 2 AS queue_full, p.value ->> 3 AS ops
FROM hta_stream s
JOIN json_each(s.queue_points) p
WINDOW w AS (PARTITION BY s.run_id, s.rank, s.device, s.stream
             ORDER BY p.key);
