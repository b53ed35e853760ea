-- 001-history.sql — a team's history on PostgreSQL (issue 36): the
-- tables a `--summaries-only` history keeps (table_role.summary = 1 in
-- the SQLite schema), one per table with the same columns, in schema
-- `profan`.  `profan push` writes them, `check`/`trend`/`runs`/`diff`
-- with --history read them (src/server/).  Applied by profan on first use
-- under an advisory lock (src/server/pg_schema.c), which records each
-- file in profan.schema_version.  docs/history-server.md has the GRANTs.
--
-- Column types follow the SQLite declared types: INTEGER -> bigint,
-- REAL -> double precision, TEXT -> text, none -> numeric (SQLite keeps
-- an integer or a real there; numeric keeps which, see pg_rows.c).
-- Ids are the ones a local history would hold: push assigns them as
-- `merge --summaries-only` does (the largest + 1, one push at a time).
-- `ord` is a row's place among its run's rows, so that a history read
-- back holds them in the order of a local one.  tests/e2e/
-- test_history_server.py checks every summary table and column is here.

CREATE SCHEMA IF NOT EXISTS profan;

CREATE TABLE profan.schema_version(
  version integer PRIMARY KEY,     -- NNN of schema/pg/NNN-name.sql
  name text NOT NULL,              -- the file
  applied_at timestamptz NOT NULL DEFAULT now()
);

-- interned names (kernels, operators): ids as in the runs' rows
CREATE TABLE profan.string(
  id bigint PRIMARY KEY,
  text text NOT NULL
);
-- md5: a kernel name can be longer than a btree entry may be
CREATE UNIQUE INDEX string_text ON profan.string(md5(text));

CREATE TABLE profan.run(
  id bigint PRIMARY KEY,
  name text NOT NULL UNIQUE,
  created_at text NOT NULL,
  source_path text,
  content_hash text NOT NULL,
  tool_version text NOT NULL,
  notes text,
  pushed_at timestamptz NOT NULL DEFAULT now(),   -- server only
  pushed_by text NOT NULL DEFAULT current_user    -- server only
);
-- none twice: a run of the same content is pushed once
CREATE UNIQUE INDEX run_content_hash ON profan.run(content_hash)
  WHERE content_hash <> '';

CREATE TABLE profan.run_tag(
  run_id bigint NOT NULL,
  key text NOT NULL,
  value text NOT NULL,
  ord integer NOT NULL,
  PRIMARY KEY(run_id, key)
);
CREATE INDEX run_tag_key ON profan.run_tag(key, value);

CREATE TABLE profan.run_file(
  id bigint PRIMARY KEY,
  run_id bigint NOT NULL,
  path text NOT NULL,
  kind text NOT NULL,
  rank bigint,
  rank_source text,
  bytes bigint NOT NULL,
  hash text NOT NULL,
  n_records bigint NOT NULL,
  parse_ms double precision,
  warnings bigint NOT NULL,
  time_regime text,
  base_time_ns bigint,
  schema_version bigint,
  host_name text,
  world_size bigint
);
CREATE INDEX run_file_run ON profan.run_file(run_id);

CREATE TABLE profan.baseline(
  name text PRIMARY KEY,
  run_id bigint NOT NULL,
  set_at text NOT NULL,
  ord integer NOT NULL
);
CREATE INDEX baseline_run ON profan.baseline(run_id);

CREATE TABLE profan.device(
  run_id bigint NOT NULL,
  rank bigint NOT NULL,
  file_id bigint NOT NULL,
  device bigint NOT NULL,
  name text,
  total_mem_bytes bigint,
  compute_major bigint,
  compute_minor bigint,
  num_sms bigint,
  ord integer NOT NULL,
  PRIMARY KEY(run_id, ord)
);

CREATE TABLE profan.snapshot(
  id bigint PRIMARY KEY,
  run_id bigint NOT NULL,
  file_id bigint NOT NULL,
  rank bigint,
  device bigint NOT NULL,
  layout text NOT NULL,
  block_format text,
  n_segments bigint NOT NULL,
  n_blocks bigint NOT NULL,
  n_events bigint NOT NULL,
  has_trace bigint NOT NULL,
  reserved_bytes bigint NOT NULL,
  allocated_bytes bigint NOT NULL,
  active_bytes bigint NOT NULL,
  inactive_bytes bigint NOT NULL,
  pending_free_bytes bigint NOT NULL,
  internal_free_bytes bigint NOT NULL,
  net_delta_bytes bigint,
  baseline_bytes bigint,
  trace_live_bytes bigint,
  n_orphan_frees bigint,
  peak_allocated_bytes bigint,
  peak_event_idx bigint,
  peak_time_us bigint,
  peak_reserved_bytes bigint,
  max_reserved_bytes bigint,
  first_time_us bigint,
  last_time_us bigint,
  alloc_conf text,
  expandable_segments bigint,
  max_split_size bigint,
  gc_threshold double precision
);
CREATE INDEX snapshot_run ON profan.snapshot(run_id);

CREATE TABLE profan.step(
  run_id bigint NOT NULL,
  rank bigint NOT NULL,
  step bigint NOT NULL,
  ts bigint NOT NULL,
  dur bigint NOT NULL,
  source text NOT NULL,
  bound_ts bigint,
  bound_dur bigint,
  bound_by text,
  ord integer NOT NULL,
  PRIMARY KEY(run_id, ord)
);

CREATE TABLE profan.gpu_op_summary(
  run_id bigint NOT NULL,
  rank bigint NOT NULL,
  kind text NOT NULL,
  name_id bigint NOT NULL,
  n bigint NOT NULL,
  total_ns bigint NOT NULL,
  min_ns bigint NOT NULL,
  max_ns bigint NOT NULL,
  ord integer NOT NULL,
  PRIMARY KEY(run_id, ord)
);

CREATE TABLE profan.gpu_busy(
  run_id bigint NOT NULL,
  rank bigint NOT NULL,
  device bigint NOT NULL,
  first_ts bigint NOT NULL,
  last_end bigint NOT NULL,
  busy_ns bigint NOT NULL,
  kernel_ns bigint NOT NULL,
  memcpy_ns bigint NOT NULL,
  memset_ns bigint NOT NULL,
  n_gaps bigint NOT NULL,
  idle_ns bigint NOT NULL,
  largest_gap_ns bigint NOT NULL,
  ord integer NOT NULL,
  PRIMARY KEY(run_id, ord)
);

CREATE TABLE profan.step_time(
  run_id bigint NOT NULL,
  rank bigint NOT NULL,
  step bigint,
  class text NOT NULL,
  ns bigint NOT NULL,
  ord integer NOT NULL,
  PRIMARY KEY(run_id, ord)
);

CREATE TABLE profan.comm_overlap(
  run_id bigint NOT NULL,
  rank bigint NOT NULL,
  device bigint NOT NULL,
  n_comm bigint NOT NULL,
  comm_ns bigint NOT NULL,
  comp_ns bigint NOT NULL,
  overlap_ns bigint NOT NULL,
  wall_ns bigint NOT NULL,
  ord integer NOT NULL,
  PRIMARY KEY(run_id, ord)
);

CREATE TABLE profan.cpu_op_summary(
  run_id bigint NOT NULL,
  rank bigint NOT NULL,
  name_id bigint NOT NULL,
  parent_name_id bigint NOT NULL,
  calls bigint NOT NULL,
  total_ns bigint NOT NULL,
  self_ns bigint NOT NULL,
  gpu_n bigint NOT NULL,
  gpu_ns bigint NOT NULL,
  ord integer NOT NULL,
  PRIMARY KEY(run_id, ord)
);

CREATE TABLE profan.step_kernel_summary(
  run_id bigint NOT NULL,
  rank bigint NOT NULL,
  step bigint NOT NULL,
  kernels bigint NOT NULL,
  kernel_ns bigint NOT NULL,
  ord integer NOT NULL,
  PRIMARY KEY(run_id, ord)
);

-- the stored run metrics (view run_metric in SQLite is their union);
-- (metric, run_id): `trend` and the metric names
CREATE TABLE profan.core_run_metric(
  run_id bigint NOT NULL,
  metric text NOT NULL,
  value numeric,
  ord integer NOT NULL,
  PRIMARY KEY(run_id, ord)
);
CREATE INDEX core_run_metric_metric ON profan.core_run_metric(metric, run_id);

CREATE TABLE profan.hta_run_metric(
  run_id bigint NOT NULL,
  metric text NOT NULL,
  value double precision,
  ord integer NOT NULL,
  PRIMARY KEY(run_id, ord)
);
CREATE INDEX hta_run_metric_metric ON profan.hta_run_metric(metric, run_id);

CREATE TABLE profan.op_run_metric(
  run_id bigint NOT NULL,
  metric text NOT NULL,
  value double precision,
  ord integer NOT NULL,
  PRIMARY KEY(run_id, ord)
);
CREATE INDEX op_run_metric_metric ON profan.op_run_metric(metric, run_id);
