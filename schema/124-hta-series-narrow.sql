-- 124-hta-series-narrow.sql — hta_stream's two JSON arrays in fewer
-- bytes (issue 35: on param-linear-2080ti x10 hta_stream was 5.35 MB, the
-- largest derived table): a queue change whose call's (queue_full, ops)
-- is the stream's most common pair is written [held, queue_length], the
-- pair kept once on the row (common_full, common_ops), its time step
-- written as the time to the next change so the view needs no lead(); an
-- idle interval is [gap_ns, row_id] with its cause (host wait or not)
-- given by its position and its kind by row_id's sign.  The views
-- hta_idle_interval and hta_queue_length give the same rows and columns
-- as under 111, with the built-in json functions only (no custom
-- function: they work in the stock sqlite3 shell).  Derived table:
-- dropped here, refilled by ingest or `profan rebuild`.

DROP VIEW hta_idle_interval;
DROP VIEW hta_queue_length;
DROP TABLE hta_stream;

-- One row per stream with idle intervals or launch-queue changes.
--
-- idle_gaps: its idle intervals (094's definition: the gap before a GPU
-- op that starts after every earlier op of its stream ended), one
-- [gap_ns, row_id] each: gap_ns = the op's start - the latest end before
-- it, row_id the id of the op after the gap, a kernel's id as it is, a
-- gpu_mem_op's negated (-id).  The first host_wait_lo intervals are
-- those whose launch came before the idle start, then those where it
-- came after (host wait), each part in increasing gap_ns: so the
-- intervals of one cause are consecutive in gap order whatever the
-- threshold (element k of the array: json_each's key k).
--
-- queue_points: its launch-queue changes (094's definition) in change
-- order, one [held, queue_length] or [held, queue_length, queue_full,
-- ops] each: held = the next change's time - this change's (0 for the
-- last; the first is at queue_t0), so that a change's time and the next
-- one's are two sums of one window, without lead(); queue_full the limit
-- of the call that made the change (null: none known), ops that call's
-- ops on the stream.  The short form: the call's (queue_full, ops) are
-- the stream's most common pair, common_full (NULL: none known) and
-- common_ops (NULL: no change).
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
  host_wait_lo INTEGER NOT NULL,   -- the first with a host wait (element)
  queue_n INTEGER NOT NULL,        -- change points (queue-length: changes)
  queue_t0 INTEGER,                -- the first change's time
  queue_sum INTEGER, queue_max INTEGER,
  p50_lo INTEGER, p50_hi INTEGER,
  p75_lo INTEGER, p75_hi INTEGER,
  p95_lo INTEGER, p95_hi INTEGER,
  queue_area INTEGER, queue_span INTEGER,
  queue_empty_ns INTEGER, queue_blocked_ns INTEGER,
  common_full INTEGER,             -- queue_full of the short elements
  common_ops INTEGER,              -- ops of the short elements
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
  CASE WHEN (i.value ->> 1) < 0 THEN m.kind ELSE 'kernel' END AS kind,
  abs(i.value ->> 1) AS row_id,
  coalesce(k.name_id, m.name_id) AS name_id, coalesce(k.step, m.step) AS step,
  coalesce(k.ts, m.ts) - (i.value ->> 0) AS prev_end,
  coalesce(k.ts, m.ts) AS ts, i.value ->> 0 AS gap_ns, r.ts AS launch_ts,
  CASE WHEN i.key >= s.host_wait_lo THEN 'host_wait'
       WHEN (i.value ->> 0) < (SELECT value FROM hta_setting
                               WHERE name = 'kernel_wait_ns')
         THEN 'kernel_wait'
       ELSE 'other' END AS category
FROM hta_stream s
JOIN json_each(s.idle_gaps) i
LEFT JOIN kernel k ON (i.value ->> 1) > 0 AND k.id = (i.value ->> 1)
LEFT JOIN gpu_mem_op m ON (i.value ->> 1) < 0 AND m.id = -(i.value ->> 1)
LEFT JOIN runtime_call r ON r.id = coalesce(k.runtime_id, m.runtime_id);

-- A change's time is queue_t0 plus the held times of the changes before
-- it; the next change's time adds its own (NULL after the last).  A
-- short element's queue_full and ops are the row's common pair.
CREATE VIEW hta_queue_length AS
SELECT s.run_id, s.rank, s.device, s.stream,
  s.queue_t0 + sum(p.value ->> 0) OVER w - (p.value ->> 0) AS ts,
  p.value ->> 1 AS queue_length,
  CASE WHEN p.key < s.queue_n - 1
       THEN s.queue_t0 + sum(p.value ->> 0) OVER w END AS next_ts,
  CASE WHEN (p.value ->> 3) IS NULL THEN s.common_full
       ELSE p.value ->> 2 END AS queue_full,
  coalesce(p.value ->> 3, s.common_ops) AS ops
FROM hta_stream s
JOIN json_each(s.queue_points) p
WINDOW w AS (PARTITION BY s.run_id, s.rank, s.device, s.stream
             ORDER BY p.key ROWS UNBOUNDED PRECEDING);
