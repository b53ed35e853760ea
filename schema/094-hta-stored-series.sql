-- 094-hta-stored-series.sql — what three named queries computed with
-- window functions over every GPU op of a run is stored once per run by
-- the derive pass (src/analysis/derive_hta_series.c, from the sweeps of
-- hta_metric.c and kernel_seq.c), issue 35: idle-breakdown over all 256
-- ranks of bench/make_ranks.py took 20 s, kernel-sequences 3.2 s,
-- queue-length 2.4 s.  The queries and the views hta_idle_interval and
-- hta_queue_length read these rows by their (run_id, rank, ...) keys
-- (WITHOUT ROWID: the key is the table, no second copy in an index); the
-- former window definitions are tests/oracle/hta_series.sql, the oracle
-- test_oracle.py compares these rows with on every fixture.

-- One row per idle interval of a stream: the gap before a GPU op that
-- starts after every earlier op of its stream (by start, then row id)
-- ended.  host_wait: the op's launch call started after the stream went
-- idle; the view hta_idle_interval gives the category (host_wait, else
-- kernel_wait below hta_setting 'kernel_wait_ns', else other) when read,
-- so that an edited threshold holds for runs already stored.
CREATE TABLE hta_idle_gap(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  device INTEGER NOT NULL,         -- GPU ordinal (0 for a row without one)
  stream INTEGER NOT NULL,
  host_wait INTEGER NOT NULL,      -- 1: the launch came after the idle start
  gap_ns INTEGER NOT NULL,         -- ts - the latest end before it
  ts INTEGER NOT NULL,             -- start of the op after the gap
  kind TEXT NOT NULL,              -- that op: kernel, memcpy or memset
  row_id INTEGER NOT NULL,         -- its kernel.id / gpu_mem_op.id
  launch_ts INTEGER,               -- its launch call's start, if known
  PRIMARY KEY(run_id, rank, device, stream, ts)
) WITHOUT ROWID;

-- One row per change of a stream's launch queue (schema 060's
-- definition: one entry per launch call and stream, +1 at the call's
-- start, -1 when its first op on the stream starts; at equal times
-- launches first).  queue_full: the limit of the call that made the
-- change (hta_queue_limit; NULL: none known); ops: that call's ops on
-- the stream.
CREATE TABLE hta_queue_point(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  device INTEGER NOT NULL,
  stream INTEGER NOT NULL,
  seq INTEGER NOT NULL,            -- 0, 1, ... in the stream's change order
  ts INTEGER NOT NULL,
  queue_length INTEGER NOT NULL,
  next_ts INTEGER,                 -- the next change (NULL: the last)
  queue_full INTEGER,
  ops INTEGER NOT NULL,
  PRIMARY KEY(run_id, rank, device, stream, seq)
) WITHOUT ROWID;

-- Sequences of consecutive kernels on a stream (memcpy and memset rows
-- neither join nor break one), lengths 1 to 8, every start position
-- counted, the devices of a stream together.
CREATE TABLE kernel_sequence(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  stream INTEGER NOT NULL,
  length INTEGER NOT NULL,
  seq TEXT NOT NULL,               -- kernel name ids in order, ',' between
  n INTEGER NOT NULL,              -- occurrences
  ns INTEGER NOT NULL,             -- summed kernel time of all of them
  span_ns INTEGER NOT NULL,        -- summed first start -> last end
  PRIMARY KEY(run_id, rank, stream, length, seq)
) WITHOUT ROWID;

INSERT INTO table_role(name, role, input_kind, summary, description) VALUES
  ('hta_idle_gap', 'derived_run', NULL, 0,
   'GPU idle intervals per stream with their cause'),
  ('hta_queue_point', 'derived_run', NULL, 0,
   'launch queue length per stream, one row per change'),
  ('kernel_sequence', 'derived_run', NULL, 0,
   'counts of sequences of consecutive kernels per rank and stream');

DROP VIEW hta_idle_interval;
CREATE VIEW hta_idle_interval AS
SELECT i.run_id, i.rank, i.device, i.stream, i.kind, i.row_id,
  coalesce(k.name_id, m.name_id) AS name_id, coalesce(k.step, m.step) AS step,
  i.ts - i.gap_ns AS prev_end, i.ts, i.gap_ns, i.launch_ts,
  CASE WHEN i.host_wait THEN 'host_wait'
       WHEN i.gap_ns < (SELECT value FROM hta_setting
                        WHERE name = 'kernel_wait_ns') THEN 'kernel_wait'
       ELSE 'other' END AS category
FROM hta_idle_gap i
LEFT JOIN kernel k ON i.kind = 'kernel' AND k.id = i.row_id
LEFT JOIN gpu_mem_op m ON i.kind <> 'kernel' AND m.id = i.row_id;

DROP VIEW hta_queue_length;
CREATE VIEW hta_queue_length AS
SELECT run_id, rank, device, stream, ts, queue_length, next_ts, queue_full,
  ops
FROM hta_queue_point;
