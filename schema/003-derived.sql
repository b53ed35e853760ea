-- 003-derived.sql — per-run summary tables filled at the end of an ingest
-- (derive stage).  They are rebuilt from the raw tables and never edited
-- by hand; deleting a run deletes its rows here too.

-- GPU activity totals per run, rank, kind and name (kernels, memcpy, memset).
CREATE TABLE gpu_op_summary(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  kind TEXT NOT NULL,              -- 'kernel', 'memcpy' or 'memset'
  name_id INTEGER NOT NULL,
  n INTEGER NOT NULL,
  total_ns INTEGER NOT NULL,
  min_ns INTEGER NOT NULL,
  max_ns INTEGER NOT NULL,
  PRIMARY KEY(run_id, rank, kind, name_id)
) WITHOUT ROWID;

-- GPU busy time per device: union of kernel, memcpy and memset intervals.
CREATE TABLE gpu_busy(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  device INTEGER NOT NULL,
  first_ts INTEGER NOT NULL,       -- first GPU activity start
  last_end INTEGER NOT NULL,       -- last GPU activity end
  busy_ns INTEGER NOT NULL,        -- length of the union of intervals
  kernel_ns INTEGER NOT NULL,      -- sum of kernel durations (overlap counted twice)
  memcpy_ns INTEGER NOT NULL,
  memset_ns INTEGER NOT NULL,
  n_gaps INTEGER NOT NULL,         -- idle gaps between activities
  idle_ns INTEGER NOT NULL,        -- total idle between first_ts and last_end
  largest_gap_ns INTEGER NOT NULL,
  PRIMARY KEY(run_id, rank, device)
) WITHOUT ROWID;

-- The largest idle gaps per device (at most 50), with their neighbours.
CREATE TABLE gpu_gap(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  device INTEGER NOT NULL,
  ts INTEGER NOT NULL,             -- gap start
  dur INTEGER NOT NULL,
  before_name_id INTEGER,          -- activity that ended the busy period
  after_name_id INTEGER,           -- activity that started the next one
  step INTEGER
);
CREATE INDEX gpu_gap_run ON gpu_gap(run_id, rank, device);

-- Wall time per rank and step split by what was running, by priority:
-- kernel > memcpy > memset > comm > runtime > cpu > idle.  Sums to wall.
CREATE TABLE step_time(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  step INTEGER,                    -- NULL: outside every step
  class TEXT NOT NULL,
  ns INTEGER NOT NULL
);
CREATE INDEX step_time_run ON step_time(run_id, rank, step);
