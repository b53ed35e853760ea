-- 001-baseline.sql — the schema of a new profan database: everything
-- defined before the first release, in one file.
--
-- It replaced the development migrations 001-030 (27 files) and then
-- 031-095 (20 files); each of its sections says which file it was ("was
-- 013-hta-analyses.sql"), so a comment elsewhere that cites "schema 013"
-- or a file name finds its section here.  An object a later file
-- redefined is only in its final form, in the section of the file that
-- last defined it (the earlier place says where); columns a file added
-- are in their table's CREATE TABLE, seed rows it changed in their
-- INSERT.  tests/e2e/test_schema_baseline.py checks, against the files
-- in git history, that this file makes exactly the tables, views,
-- indexes, triggers and rows (table_role included) that the baseline of
-- 272d7b5 and 031-095 made.
--
-- Versions: PRAGMA user_version is the number of the last schema file
-- applied; this file counts as 095, the highest number it folded
-- (PROFAN_SCHEMA_BASELINE, src/core/db.h).  schema/NNN-name.sql files
-- numbered above it are applied in the order of their number to a
-- database that has not had them (gaps allowed; a file numbered at or
-- below a database's version is never applied to it, so a branch's file
-- is renumbered above main's highest when it merges).  PRAGMA
-- application_id is 0x50464442 ("PFDB").  Databases of development
-- builds are refused, their inputs are ingested again instead: those
-- from before the first baseline (application_id 0x50524f46 "PROF",
-- user_version = count of files applied), and "PFDB" ones at a version
-- from 1 to 94 (the files this one folded can no longer be applied).
-- Derived tables are never migrated: a later file that changes how one
-- is computed empties it, and `profan rebuild` fills it from the raw rows.
-- schema/current.sql is the whole schema in one generated file
-- (scripts/schema_current.py).

-- ======================================================================
-- was 001-core.sql — runs, files, tags and interned strings.

CREATE TABLE run(
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- run id, never reused
  name TEXT NOT NULL UNIQUE,       -- user-visible name (default: directory name)
  created_at TEXT NOT NULL,        -- ISO-8601 UTC time of the ingest
  source_path TEXT,                -- path(s) given to `profan ingest`
  content_hash TEXT NOT NULL,      -- hash over the input files' content
  tool_version TEXT NOT NULL,      -- profan version that ingested it
  notes TEXT
);
CREATE INDEX run_content_hash ON run(content_hash);

CREATE TABLE run_tag(
  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY(run_id, key)
) WITHOUT ROWID;

CREATE TABLE run_file(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  path TEXT NOT NULL,              -- path as found
  kind TEXT NOT NULL,              -- 'trace', 'snapshot', 'nccl_log', ...
  rank INTEGER,                    -- rank this file describes
  rank_source TEXT,                -- 'distributedInfo', 'file name', 'default'
  bytes INTEGER NOT NULL,          -- size on disk
  hash TEXT NOT NULL,              -- XXH64 of the bytes on disk, hex
  n_records INTEGER NOT NULL DEFAULT 0, -- events / entries / lines read
  parse_ms REAL,                   -- wall time spent parsing
  warnings INTEGER NOT NULL DEFAULT 0,  -- skipped or repaired records
  time_regime TEXT,                -- trace: 'absolute_us', 'absolute_frac_us', 'relative_us'
  base_time_ns INTEGER,            -- trace: baseTimeNanoseconds when present
  schema_version INTEGER,          -- trace: schemaVersion
  host_name TEXT,                  -- trace metadata when present
  world_size INTEGER               -- trace: distributedInfo.world_size
);
CREATE INDEX run_file_run ON run_file(run_id);

-- Interned names (kernel names, op names, stack frames): stored once.
CREATE TABLE string(
  id INTEGER PRIMARY KEY,
  text TEXT NOT NULL UNIQUE
);


-- ======================================================================
-- was 002-trace.sql — PyTorch profiler (Kineto) trace tables.
-- Times are int64 nanoseconds: since the Unix epoch when the trace allows
-- (integer µs traces and baseTimeNanoseconds traces), else the trace's own
-- origin (run_file.time_regime says which).  Durations are nanoseconds.

-- GPU kernels (cat kernel / Kernel).
CREATE TABLE kernel(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  file_id INTEGER NOT NULL,        -- run_file.id
  device INTEGER,                  -- GPU ordinal (pid of the GPU row)
  stream INTEGER,                  -- CUPTI stream id (tid of the GPU row)
  ts INTEGER NOT NULL,             -- start, ns
  dur INTEGER NOT NULL,            -- ns
  name_id INTEGER NOT NULL,        -- string.id
  correlation INTEGER,             -- CUPTI correlation id
  external_id INTEGER,
  grid_x INTEGER, grid_y INTEGER, grid_z INTEGER,
  block_x INTEGER, block_y INTEGER, block_z INTEGER,
  registers INTEGER,               -- registers per thread
  shared_mem INTEGER,              -- bytes, static + dynamic
  blocks_per_sm REAL,
  warps_per_sm REAL,
  occupancy_pct REAL,              -- est. achieved occupancy %
  runtime_id INTEGER,              -- runtime_call.id of the launch (derived)
  op_id INTEGER,                   -- cpu_op.id enclosing the launch (derived)
  step INTEGER                     -- ProfilerStep number (derived)
);

-- memcpy / memset activities (cat gpu_memcpy, gpu_memset, Memcpy, Memset).
CREATE TABLE gpu_mem_op(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  file_id INTEGER NOT NULL,
  device INTEGER,
  stream INTEGER,
  ts INTEGER NOT NULL,
  dur INTEGER NOT NULL,
  name_id INTEGER NOT NULL,
  kind TEXT NOT NULL,              -- 'memcpy' or 'memset'
  direction TEXT,                  -- 'HtoD', 'DtoH', 'DtoD', 'HtoH', 'PtoP' or NULL
  src_kind TEXT,                   -- 'Pageable', 'Pinned', 'Device', ...
  dst_kind TEXT,
  bytes INTEGER,
  correlation INTEGER,
  external_id INTEGER,
  runtime_id INTEGER,              -- derived
  op_id INTEGER,                   -- derived
  step INTEGER,                    -- derived
  gbps REAL                        -- the trace's `memory bandwidth (GB/s)`
                                   -- arg (was 061-memcpy-bandwidth-arg.sql)
);

-- CPU operators (cat cpu_op / Operator).
CREATE TABLE cpu_op(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  file_id INTEGER NOT NULL,
  pid INTEGER,
  tid INTEGER,
  ts INTEGER NOT NULL,
  dur INTEGER NOT NULL,
  name_id INTEGER NOT NULL,
  external_id INTEGER,
  sequence INTEGER,                -- autograd sequence number
  fwd_tid INTEGER,                 -- Fwd thread id
  input_dims_id INTEGER,           -- string.id of the JSON text, e.g. [[8,256],[256]]
  input_types_id INTEGER,          -- string.id of the JSON text
  concrete_inputs_id INTEGER,      -- string.id of the JSON text
  flops REAL,                      -- from args.flops, else estimated
  flops_source TEXT,               -- 'arg' or 'estimate'
  parent_id INTEGER,               -- enclosing cpu_op on the thread (derived)
  depth INTEGER,                   -- nesting depth, 0 = top level (derived)
  self_dur INTEGER,                -- dur minus direct children (derived)
  step INTEGER                     -- derived
);

-- CUDA runtime and driver calls (cudaLaunchKernel, cuLaunchKernel, ...).
CREATE TABLE runtime_call(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  file_id INTEGER NOT NULL,
  pid INTEGER,
  tid INTEGER,
  ts INTEGER NOT NULL,
  dur INTEGER NOT NULL,
  name_id INTEGER NOT NULL,
  kind TEXT NOT NULL,              -- 'runtime' or 'driver'
  correlation INTEGER,
  external_id INTEGER,
  cbid INTEGER,
  op_id INTEGER,                   -- innermost enclosing cpu_op (derived)
  top_op_id INTEGER,               -- outermost enclosing cpu_op (derived)
  in_recompute INTEGER,            -- 1 when under a checkpoint/recompute op (derived)
  step INTEGER                     -- derived
);

-- GPU-side synchronisation records (cat cuda_sync).
CREATE TABLE gpu_sync(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  file_id INTEGER NOT NULL,
  device INTEGER,
  stream INTEGER,
  ts INTEGER NOT NULL,
  dur INTEGER NOT NULL,
  name_id INTEGER NOT NULL,
  correlation INTEGER
);

-- user_annotation (CPU) and gpu_user_annotation (GPU) ranges.
CREATE TABLE annotation(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  file_id INTEGER NOT NULL,
  kind TEXT NOT NULL,              -- 'user' or 'gpu_user'
  pid INTEGER,                     -- OS pid, or device for gpu_user
  tid INTEGER,                     -- OS tid, or stream for gpu_user
  ts INTEGER NOT NULL,
  dur INTEGER NOT NULL,
  name_id INTEGER NOT NULL,
  external_id INTEGER
);

-- Profiler memory instants ([memory], [OutOfMemory]).
CREATE TABLE memory_event(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  file_id INTEGER NOT NULL,
  ts INTEGER NOT NULL,
  name TEXT NOT NULL,              -- '[memory]' or '[OutOfMemory]'
  device_type INTEGER,             -- 0 CPU, 1 CUDA
  device INTEGER,                  -- -1 for CPU
  addr INTEGER,
  bytes INTEGER,                   -- negative for frees
  total_allocated INTEGER,
  total_reserved INTEGER
);

-- Python tracer frames (with_stack=True), only when present.
CREATE TABLE python_function(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  file_id INTEGER NOT NULL,
  pid INTEGER,
  tid INTEGER,
  ts INTEGER NOT NULL,
  dur INTEGER NOT NULL,
  name_id INTEGER NOT NULL,
  python_id INTEGER,
  parent_python_id INTEGER
);

-- deviceProperties entries.
CREATE TABLE device(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  file_id INTEGER NOT NULL,
  device INTEGER NOT NULL,         -- CUDA ordinal
  name TEXT,
  total_mem_bytes INTEGER,
  compute_major INTEGER,
  compute_minor INTEGER,
  num_sms INTEGER
);

-- Steps per rank: ProfilerStep#N annotations, else gap detection.
CREATE TABLE step(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  step INTEGER NOT NULL,
  ts INTEGER NOT NULL,
  dur INTEGER NOT NULL,
  source TEXT NOT NULL,            -- 'ProfilerStep' or 'gap'
  -- the step time that bounds the work (was 040-step-time-bound.sql):
  -- written by derive_step_bound.c, read by view step_steady
  bound_ts INTEGER,                -- S_k, ns
  bound_dur INTEGER,               -- E_k - S_k, ns
  bound_by TEXT,                   -- 'cpu' or 'gpu'
  PRIMARY KEY(run_id, rank, step)
) WITHOUT ROWID;


-- ======================================================================
-- was 003-derived.sql — per-run summary tables filled at the end of an ingest
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


-- ======================================================================
-- was 004-categories.sql — kernel classification as data.
-- A kernel's category in a scheme is the category of the lowest-priority
-- rule whose pattern is a case-insensitive substring of its name, else the
-- scheme's default.  Add rules with plain SQL; the views follow:
--   INSERT INTO category_rule VALUES('detailed', 5, 'my_kernel', 'Mine');

CREATE TABLE category_scheme(
  scheme TEXT PRIMARY KEY,
  default_category TEXT NOT NULL,
  description TEXT
);

CREATE TABLE category_rule(
  scheme TEXT NOT NULL REFERENCES category_scheme(scheme),
  priority INTEGER NOT NULL,       -- lower wins
  pattern TEXT NOT NULL,           -- substring, matched case-insensitively
  category TEXT NOT NULL,
  PRIMARY KEY(scheme, priority, pattern)
);

INSERT INTO category_scheme(scheme, default_category, description) VALUES
  ('detailed', 'Other', 'fine-grained kernel families: communication, attention, GEMM, elementwise, memory and more'),
  ('coarse', 'other', 'comm / memory / matmul / other');

INSERT INTO category_rule(scheme, priority, pattern, category) VALUES
  ('detailed', 20, '_group_bwd_lora_split', 'ScatterMoE bwd LoRA split'),
  ('detailed', 21, '_group_bwd_da', 'ScatterMoE bwd LoRA split'),
  ('detailed', 22, '_group_bwd_db', 'ScatterMoE bwd LoRA split'),
  ('detailed', 30, '_group_bwd_lora', 'ScatterMoE bwd LoRA fused'),
  ('detailed', 40, '_scatter2scatter_lora_dx', 'ScatterMoE bwd dX'),
  ('detailed', 50, '_scatter2scatter_lora', 'ScatterMoE fwd'),
  ('detailed', 60, 'dequantize', 'BnB dequantization'),
  ('detailed', 61, 'kdequantizeblockwise', 'BnB dequantization'),
  ('detailed', 70, 'flash', 'Flash Attention'),
  ('detailed', 71, 'fmha', 'Flash Attention'),
  ('detailed', 80, '_cce_', 'CCE loss'),
  ('detailed', 90, 'lora_qkv', 'LoRA QKV kernels'),
  ('detailed', 91, 'lora_o', 'LoRA O kernels'),
  ('detailed', 92, 'lora_mlp', 'LoRA MLP kernels'),
  ('detailed', 100, 'swiglu', 'LoRA activation'),
  ('detailed', 101, 'geglu', 'LoRA activation'),
  ('detailed', 110, 'linalg_norm', 'DoRA weight norm'),
  ('detailed', 111, 'dora_scale', 'DoRA weight norm'),
  ('detailed', 120, 'cutlass', 'GEMM/CUTLASS'),
  ('detailed', 121, 'gemm', 'GEMM/CUTLASS'),
  ('detailed', 122, 'gemv', 'GEMM/CUTLASS'),
  ('detailed', 123, 'cublas', 'GEMM/CUTLASS'),
  ('detailed', 130, 'triton', 'Triton'),
  ('detailed', 140, 'conv1d', 'Conv1d'),
  ('detailed', 141, 'causal_conv', 'Conv1d'),
  ('detailed', 150, 'adam', 'Optimizer'),
  ('detailed', 151, 'optim', 'Optimizer'),
  ('detailed', 160, '_to_copy', 'Dtype conversion'),
  ('detailed', 161, 'to_copy', 'Dtype conversion'),
  ('detailed', 170, 'fill', 'Elementwise/Fill'),
  ('detailed', 171, 'elementwise', 'Elementwise/Fill'),
  ('detailed', 172, 'cast', 'Elementwise/Fill'),
  ('detailed', 173, 'copy_kernel', 'Elementwise/Fill'),
  ('detailed', 180, 'memcpy', 'Memory ops'),
  ('detailed', 181, 'memset', 'Memory ops'),
  ('detailed', 190, 'topk', 'TopK/Sort'),
  ('detailed', 191, 'sort', 'TopK/Sort'),
  ('detailed', 200, 'index', 'Index/Gather/Scatter'),
  ('detailed', 201, 'gather', 'Index/Gather/Scatter'),
  ('detailed', 202, 'scatter', 'Index/Gather/Scatter'),
  ('coarse', 20, 'memcpy', 'memory'),
  ('coarse', 21, 'memset', 'memory'),
  ('coarse', 30, 'gemm', 'matmul'),
  ('coarse', 31, 'matmul', 'matmul'),
  ('coarse', 32, 'bmm', 'matmul'),
  ('coarse', 33, 'cublas', 'matmul'),
  ('coarse', 34, 'nvjet', 'matmul'),
  ('coarse', 35, 'cutlass', 'matmul'),
  ('coarse', 36, 'dot', 'matmul'),
  ('coarse', 37, 'mm', 'matmul');


-- ======================================================================
-- was 005-views.sql — views over the raw and derived tables.  They use only
-- built-in SQL functions, so they work the same in the stock sqlite3 shell:
--   sqlite3 profan.db 'SELECT * FROM category_breakdown WHERE run_id = 1'

-- Step durations per rank.
CREATE VIEW step_times AS
SELECT run_id, rank, step, ts, dur AS dur_ns,
  round(dur / 1e6, 3) AS dur_ms, source
FROM step;

-- GPU utilization per device: busy union over the active window.
CREATE VIEW gpu_utilization AS
SELECT run_id, rank, device,
  last_end - first_ts AS wall_ns, busy_ns, idle_ns, n_gaps, largest_gap_ns,
  round(100.0 * busy_ns / max(last_end - first_ts, 1), 2) AS busy_pct
FROM gpu_busy;

-- Kernels with their names and launch linkage resolved.
CREATE VIEW kernel_named AS
SELECT k.*, s.text AS name, os.text AS op_name
FROM kernel k
JOIN string s ON s.id = k.name_id
LEFT JOIN cpu_op o ON o.id = k.op_id
LEFT JOIN string os ON os.id = o.name_id;

-- CPU ops with their name and input shapes/types as text.
CREATE VIEW cpu_op_named AS
SELECT o.*, s.text AS name, d.text AS input_dims, t.text AS input_types,
  c.text AS concrete_inputs
FROM cpu_op o JOIN string s ON s.id = o.name_id
LEFT JOIN string d ON d.id = o.input_dims_id
LEFT JOIN string t ON t.id = o.input_types_id
LEFT JOIN string c ON c.id = o.concrete_inputs_id;


-- ======================================================================
-- was 006-memory.sql — CUDA caching-allocator memory snapshots
-- (torch.cuda.memory._dump_snapshot pickles, see formats.md §2).
--
-- Raw tables (written by load_snapshot.c): snapshot, segment, block,
-- alloc_event, memory_annotation, frame, stack, stack_frame.  The replay
-- columns of snapshot and alloc_event (allocated_after, free_idx, peak_*)
-- are computed by one sweep over each device trace at ingest.  Derived
-- columns (frame.is_user, stack.user_frame_id, stack.category) are filled
-- by derive_memory.c at the end of the ingest from the two rule tables
-- below, which are data: add rows with plain SQL and re-ingest.
--
-- Sizes are bytes.  Snapshot times are Unix-epoch microseconds (time_us).
-- "allocated" counts requested (un-rounded) bytes, as the trace records
-- them; "active"/"inactive" count block sizes, as the allocator does.

-- One row per (snapshot file, device ordinal).
CREATE TABLE snapshot(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL,
  file_id INTEGER NOT NULL,        -- run_file.id
  rank INTEGER,                    -- NULL when the file does not say
  device INTEGER NOT NULL,         -- CUDA ordinal
  layout TEXT NOT NULL,            -- 'dict' or 'segment_list'
  block_format TEXT,               -- 'address' (2.1+), 'history' (1.13/2.0)
  n_segments INTEGER NOT NULL,
  n_blocks INTEGER NOT NULL,
  n_events INTEGER NOT NULL,       -- entries in device_traces[device]
  has_trace INTEGER NOT NULL,      -- 1: the file has device_traces
  reserved_bytes INTEGER NOT NULL, -- sum of segment total_size
  allocated_bytes INTEGER NOT NULL,-- requested bytes, active_allocated blocks
  active_bytes INTEGER NOT NULL,   -- size of allocated + pending-free blocks
  inactive_bytes INTEGER NOT NULL, -- size of inactive blocks (external free)
  pending_free_bytes INTEGER NOT NULL, -- size of pending-free blocks
  internal_free_bytes INTEGER NOT NULL,-- size - requested of active_allocated
  -- replay of device_traces[device] (NULL without a trace)
  net_delta_bytes INTEGER,         -- allocated change over the trace
  baseline_bytes INTEGER,          -- allocated before the first event
  trace_live_bytes INTEGER,        -- allocs of the trace still live at its end
  n_orphan_frees INTEGER,          -- free_requested without alloc (ring buffer)
  peak_allocated_bytes INTEGER,    -- max allocated_after (or allocated_bytes)
  peak_event_idx INTEGER,          -- first event reaching it (NULL: no trace)
  peak_time_us INTEGER,
  peak_reserved_bytes INTEGER,     -- reserved at that event
  max_reserved_bytes INTEGER,      -- maximum reserved_after
  first_time_us INTEGER,           -- first / last trace time
  last_time_us INTEGER,
  -- allocator_settings (NULL when absent)
  alloc_conf TEXT,                 -- PYTORCH_CUDA_ALLOC_CONF
  expandable_segments INTEGER,
  max_split_size INTEGER,          -- -1: unlimited
  gc_threshold REAL,               -- garbage_collection_threshold
  -- reserved but unused apart from fragmentation (was
  -- 051-memory-split.sql): written by load_snapshot.c
  unused_segments INTEGER,         -- whole segments without a live block
  unused_bytes INTEGER,            -- their total size
  fragmented_bytes INTEGER         -- inactive bytes of the other segments
);

-- One row per segment (a cudaMalloc, or one expandable range).
CREATE TABLE segment(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL,
  file_id INTEGER NOT NULL,
  snapshot_id INTEGER NOT NULL,
  idx INTEGER NOT NULL,            -- position in the file's segment list
  device INTEGER NOT NULL,
  address INTEGER,
  total_size INTEGER NOT NULL,
  allocated_size INTEGER,          -- as recorded by the allocator
  active_size INTEGER,
  requested_size INTEGER,          -- NULL before torch 2.0
  stream INTEGER,                  -- cudaStream_t as int64, 0 = default
  segment_type TEXT,               -- 'large' or 'small'
  pool_id TEXT,                    -- '(a,b)' from segment_pool_id
  is_expandable INTEGER,
  stack_id INTEGER,                -- stack at cudaMalloc (2.1+), or NULL
  n_blocks INTEGER NOT NULL,
  inactive_bytes INTEGER NOT NULL, -- size of its inactive blocks
  largest_inactive_bytes INTEGER NOT NULL
);

-- One row per block, in address order within its segment.
CREATE TABLE block(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL,
  file_id INTEGER NOT NULL,
  snapshot_id INTEGER NOT NULL,
  segment_id INTEGER NOT NULL,
  idx INTEGER NOT NULL,            -- position in the segment
  address INTEGER,                 -- before 2.1: segment base + sizes before
  size INTEGER NOT NULL,
  requested_size INTEGER NOT NULL, -- else history[0].real_size, else size
  state TEXT NOT NULL,             -- active_allocated, active_pending_free,
                                   -- or inactive
  stack_id INTEGER,                -- frames (2.1+) or history[0].frames
  prev_state TEXT,                 -- neighbour states (NULL at an edge)
  next_state TEXT,
  alloc_idx INTEGER,               -- alloc_event.idx that allocated it (replay)
  free_idx INTEGER                 -- alloc_event.idx of its free_requested
);

-- Every device_traces entry, oldest first, with the replay state after it.
CREATE TABLE alloc_event(
  run_id INTEGER NOT NULL,
  file_id INTEGER NOT NULL,
  snapshot_id INTEGER NOT NULL,
  idx INTEGER NOT NULL,            -- position in device_traces[device]
  action TEXT NOT NULL,            -- alloc, free_requested, free_completed,
                                   -- segment_alloc/free/map/unmap, snapshot,
                                   -- oom
  addr INTEGER,                    -- block or segment address (NULL for oom)
  size INTEGER,                    -- alloc: requested bytes; segment_*: range
  stream INTEGER,
  time_us INTEGER,                 -- NULL in traces without times
  stack_id INTEGER,                -- NULL when no frames were recorded
  device_free INTEGER,             -- oom: free device bytes
  allocated_after INTEGER NOT NULL,-- replay: requested bytes allocated
  active_after INTEGER NOT NULL,   -- replay: allocated + pending frees
  reserved_after INTEGER NOT NULL, -- replay: bytes in segments
  alloc_idx INTEGER,               -- free_*: idx of the matching alloc
  free_idx INTEGER,                -- alloc: idx of its free_requested
  PRIMARY KEY(snapshot_id, idx)    -- rows arrive in key order: appends
) WITHOUT ROWID;

-- external_annotations (record_function ranges seen by the allocator).
CREATE TABLE memory_annotation(
  run_id INTEGER NOT NULL,
  file_id INTEGER NOT NULL,
  snapshot_id INTEGER NOT NULL,
  time_us INTEGER,
  stage TEXT,                      -- 'START' or 'END'
  name TEXT
);

-- Stack frames, stored once per run.
CREATE TABLE frame(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL,
  filename TEXT NOT NULL,
  line INTEGER NOT NULL,
  name TEXT NOT NULL,
  is_user INTEGER,                 -- derived: Python, not in memory_frame_skip
  rule_priority INTEGER            -- derived: best memory_source_rule match
);

-- Looked up while loading (frames of a second snapshot in the same run).
CREATE UNIQUE INDEX frame_key ON frame(run_id, filename, line, name);

-- Call stacks, deduplicated per run; frames in stack_frame, innermost first.
CREATE TABLE stack(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL,
  n_frames INTEGER NOT NULL,
  key_hash INTEGER NOT NULL,       -- hash of the frame id sequence
  user_frame_id INTEGER,           -- derived: first user-level frame
  category TEXT                    -- derived: memory_source_rule category
);

CREATE TABLE stack_frame(
  run_id INTEGER NOT NULL,
  stack_id INTEGER NOT NULL,
  pos INTEGER NOT NULL,            -- 0 = innermost (the allocator)
  frame_id INTEGER NOT NULL,
  PRIMARY KEY(stack_id, pos)
) WITHOUT ROWID;
CREATE INDEX stack_key ON stack(run_id, key_hash);

-- Frames that are not "user level": a frame whose file name contains one
-- of these substrings is skipped when looking for an allocation's source.
-- Only Python frames (file name ending in .py) can be user level.
CREATE TABLE memory_frame_skip(
  pattern TEXT PRIMARY KEY
);

INSERT INTO memory_frame_skip(pattern) VALUES
  ('torch/autograd/'),
  ('torch/utils/checkpoint'),
  ('torch/nn/modules/module.py'),
  ('torch/_dynamo/'),
  ('torch/_inductor/'),
  ('torch/cuda'),
  ('torch/_C'),
  ('torch/_tensor.py'),
  ('torch/utils/_contextlib.py'),
  ('torch/_compile.py');

-- Source categories of an allocation: the lowest-priority rule whose
-- pattern is a case-insensitive substring of any frame's file name or
-- function name in the allocation's stack; 'other' when none matches.
CREATE TABLE memory_source_rule(
  priority INTEGER NOT NULL,       -- lower wins
  pattern TEXT NOT NULL,
  category TEXT NOT NULL,
  PRIMARY KEY(priority, pattern)
);

INSERT INTO memory_source_rule(priority, pattern, category) VALUES
  (10, 'torch/utils/checkpoint', 'gradient-checkpoint recompute'),
  (11, 'recompute', 'gradient-checkpoint recompute'),
  (20, 'bitsandbytes', 'BnB dequantization'),
  (21, 'dequantize', 'BnB dequantization'),
  (30, 'scattermoe', 'ScatterMoE LoRA'),
  (31, 'scatter2scatter', 'ScatterMoE LoRA'),
  (40, 'torch/optim/', 'optimizer'),
  (41, 'optimizer.step', 'optimizer'),
  (42, 'zero_grad', 'optimizer'),
  (50, 'layer_norm', 'LayerNorm'),
  (51, 'layernorm', 'LayerNorm'),
  (52, 'rms_norm', 'LayerNorm'),
  (53, 'rmsnorm', 'LayerNorm'),
  (60, '/fla/', 'FLA linear attention'),
  (61, 'linear_attn', 'FLA linear attention'),
  (62, 'chunk_gla', 'FLA linear attention');

-- Blocks with their segment, stack source and names resolved.
CREATE VIEW memory_block AS
SELECT b.*, s.device, s.stream, s.segment_type, s.total_size AS segment_size,
  st.category, f.filename AS source_file, f.line AS source_line,
  f.name AS source_function
FROM block b
JOIN segment s ON s.id = b.segment_id
LEFT JOIN stack st ON st.id = b.stack_id
LEFT JOIN frame f ON f.id = st.user_frame_id;

-- Trace entries with their source resolved.
CREATE VIEW memory_event_source AS
SELECT e.*, coalesce(st.category, 'unknown') AS category,
  f.filename AS source_file, f.line AS source_line,
  f.name AS source_function
FROM alloc_event e
LEFT JOIN stack st ON st.id = e.stack_id
LEFT JOIN frame f ON f.id = st.user_frame_id;

-- Per-snapshot totals as the allocator reports them.
-- (view memory_summary: final form in "was 051-memory-split.sql")


-- ======================================================================
-- was 007-comm.sql — communication: NCCL debug logs, collectives found in
-- traces, per-rank communication overlap and latency/bandwidth fits, and
-- PyTorch ProcessGroupNCCL flight-recorder dumps.
-- Pointers and NCCL hashes (comm, commId, stream) are stored as hex text
-- ('0x55b6aa64a990'): they are identifiers, not numbers, and commId does
-- not fit a signed 64-bit integer.

-- One row per NCCL communicator seen in a log: (host, pid, comm pointer),
-- a new row when a pointer is reused after Destroy.
CREATE TABLE nccl_comm(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL,
  file_id INTEGER NOT NULL,        -- run_file.id of the log
  rank INTEGER,                    -- rank inside the communicator
  nranks INTEGER,
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  comm TEXT NOT NULL,              -- comm pointer, hex
  comm_id TEXT,                    -- commId hash, hex: the cross-rank key
  func TEXT,                       -- ncclCommInitRank, ncclCommSplit, ...
  cuda_dev INTEGER,
  nvml_dev INTEGER,
  bus_id TEXT,                     -- as printed ("17000" = 0000:17:00.0)
  parent TEXT,                     -- split communicators: parent pointer
  color INTEGER,
  split_key INTEGER,
  n_nodes INTEGER,                 -- topology line (2.20+)
  local_ranks INTEGER,
  version TEXT,                    -- NCCL version of the process
  init_format TEXT,                -- '2.10', '2.16', '2.18', 'func'
  start_line INTEGER,              -- line of "Init START" (2.18+)
  complete_line INTEGER,           -- line of "Init COMPLETE"
  init_total_s REAL,               -- "Init timings" total, seconds
  init_timings TEXT,               -- "kernels=0.57 alloc=0.05 ..."
  bootstrap_s REAL,                -- "Bootstrap timings" total, seconds
  n_coll_channels INTEGER,         -- "N coll channels, ..." line
  n_nvls_channels INTEGER,
  n_p2p_channels INTEGER,
  n_rings INTEGER,                 -- "Channel 00/NN" ring count (rank 0)
  n_trees INTEGER,                 -- channels listed on the "Trees" line
  end_state TEXT                   -- 'Destroy', 'Abort' or NULL
);
CREATE INDEX nccl_comm_run ON nccl_comm(run_id, comm_id);

-- Connections: "Channel NN/c : r[d] -> p[d] [send] via P2P/...".
CREATE TABLE nccl_link(
  run_id INTEGER NOT NULL,
  file_id INTEGER NOT NULL,
  comm_row INTEGER,                -- nccl_comm.id when known
  host TEXT,
  pid INTEGER,
  rank INTEGER,                    -- r
  peer INTEGER,                    -- p (-1 / NULL for NVLS, CollNet)
  channel INTEGER,
  conn_index INTEGER,
  direction TEXT,                  -- 'send', 'receive' or NULL
  transport TEXT NOT NULL,         -- 'P2P', 'SHM', 'NET', 'COLLNET', 'NVLS', 'other'
  via TEXT,                        -- text after "via "
  line INTEGER NOT NULL
);
CREATE INDEX nccl_link_run ON nccl_link(run_id);

-- One row per "<Op>: opCount ... count ... datatype ..." line.
CREATE TABLE nccl_coll(
  run_id INTEGER NOT NULL,
  file_id INTEGER NOT NULL,
  comm_row INTEGER,                -- nccl_comm.id when the comm is known
  rank INTEGER,                    -- from the comm's init line
  host TEXT,
  pid INTEGER,
  line INTEGER NOT NULL,
  op TEXT NOT NULL,                -- 'AllReduce', 'Send', ... as printed
  op_count INTEGER,                -- opCount (hex in the log)
  count INTEGER,                   -- elements (per rank: AllGather send, RS recv)
  datatype INTEGER,                -- NCCL datatype code
  dtype TEXT,                      -- 'float32', 'bfloat16', 'fp8_e4m3', ...
  bytes INTEGER,                   -- count * element size
  redop TEXT,                      -- 'sum', 'prod', 'max', 'min', 'avg', 'dynamic'
  root INTEGER,                    -- root, or the peer for Send/Recv
  comm TEXT,                       -- comm pointer, hex
  nranks INTEGER,
  stream TEXT,                     -- cudaStream_t, hex
  glued INTEGER NOT NULL DEFAULT 0, -- foreign text preceded it on the line
  -- The "[N]" some NCCL logs print between "NCCL INFO" and a collective
  -- record ("NCCL INFO [2] AllReduce: opCount ...").  Stock NCCL prints
  -- no number there (enqueue.cc's COLL format has none in any release
  -- 2.3-2.30); where NCCL itself puts "[%d]" or "[Rank %d]" right after
  -- "NCCL INFO" (the 2.29+ Init START line, the GIN and device-runtime
  -- lines) the value is the communicator rank, so that is what this
  -- column holds: the rank the line is tagged with, as printed, NULL when
  -- the line has no tag.  `rank` stays the rank of the communicator's
  -- init line (NULL when the log has none).  (was 015-nccl-tagged-rank.sql)
  tagged_rank INTEGER
);
CREATE INDEX nccl_coll_run ON nccl_coll(run_id);

-- Algorithm / protocol decisions ("AllReduce: 8388608 Bytes -> Algo RING").
CREATE TABLE nccl_algo(
  run_id INTEGER NOT NULL,
  file_id INTEGER NOT NULL,
  line INTEGER NOT NULL,
  host TEXT,
  pid INTEGER,
  func TEXT,
  bytes INTEGER,
  algo TEXT,
  proto TEXT,
  n_channels INTEGER
);

-- WARN lines, and INFO lines that carry a (downgraded) warning.
CREATE TABLE nccl_warning(
  run_id INTEGER NOT NULL,
  file_id INTEGER NOT NULL,
  line INTEGER NOT NULL,
  host TEXT,
  pid INTEGER,
  level TEXT NOT NULL,             -- 'WARN' or 'INFO' (downgraded)
  src_file TEXT,                   -- NCCL source file when printed
  src_line INTEGER,
  message TEXT NOT NULL
);

-- Collective arguments captured from trace events (kernels since kineto
-- 2023-10, record_param_comms ops, nccl:* annotations' input shapes).
CREATE TABLE coll_args(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  file_id INTEGER NOT NULL,
  src TEXT NOT NULL,               -- 'kernel', 'cpu_op' or 'annotation'
  row_id INTEGER NOT NULL,         -- kernel.id / cpu_op.id / annotation.id
  coll_name TEXT,                  -- c10d name as written ('_allgather_base')
  dtype TEXT,                      -- c10 ScalarType name or input type
  in_nelems INTEGER,
  out_nelems INTEGER,
  group_size INTEGER,
  pg_name TEXT,
  pg_desc TEXT,
  pg_ranks TEXT,                   -- JSON list text '[0, 1, 2, 3]'
  in_split TEXT,
  out_split TEXT,
  src_rank INTEGER,
  dst_rank INTEGER,
  seq INTEGER                      -- 'Seq' arg (2026 builds)
);
CREATE INDEX coll_args_row ON coll_args(run_id, src, row_id);

-- Collectives executed on the GPU (one row per NCCL/RCCL kernel), with
-- arguments from the kernel, else from the enclosing record_param_comms
-- op or nccl:* annotation, else inferred from the kernel name (derived).
-- (table collective: its final form is in "was 090-cpu-comm.sql" below)
-- (index collective_run: final form in "was 090-cpu-comm.sql")

-- Communication / computation overlap per rank and device (sweep over
-- kernels ordered by start at ingest).  comm = union of NCCL kernel
-- intervals, comp = union of the other kernels, overlap = comm ∩ comp.
CREATE TABLE comm_overlap(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  device INTEGER NOT NULL,
  n_comm INTEGER NOT NULL,         -- communication kernels
  comm_ns INTEGER NOT NULL,
  comp_ns INTEGER NOT NULL,
  overlap_ns INTEGER NOT NULL,
  wall_ns INTEGER NOT NULL,        -- |comm ∪ comp|
  PRIMARY KEY(run_id, rank, device)
) WITHOUT ROWID;

-- Least-squares fit dur = alpha + bytes / beta per collective op and
-- group size, over every rank's collectives with a known size.
CREATE TABLE comm_fit(
  run_id INTEGER NOT NULL,
  op TEXT NOT NULL,
  group_size INTEGER,
  n INTEGER NOT NULL,              -- samples
  n_sizes INTEGER NOT NULL,        -- distinct message sizes
  min_bytes INTEGER, max_bytes INTEGER,
  alpha_ns REAL,                   -- intercept (latency), ns
  slope_ns_per_byte REAL,          -- 1/beta
  alpha_se_ns REAL,                -- standard error of alpha
  slope_se REAL,                   -- standard error of the slope
  rmse_ns REAL,                    -- residual standard error
  r2 REAL,
  alpha_fixed INTEGER NOT NULL DEFAULT 0 -- 1: fitted through the origin
                                   -- (was 065-comm-fit-origin.sql)
);

-- Flight recorder: one row per dump (file).
CREATE TABLE fr_dump(
  run_id INTEGER NOT NULL,
  file_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,           -- from the file name <prefix><rank>
  version TEXT,
  nccl_version TEXT,
  format TEXT NOT NULL,            -- 'pickle' or 'json'
  n_entries INTEGER NOT NULL
);

-- Process groups as each dump's pg_config describes them.
CREATE TABLE fr_group(
  run_id INTEGER NOT NULL,
  file_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  pg_name TEXT NOT NULL,
  pg_desc TEXT,
  ranks TEXT,                      -- JSON list text '[0, 1, 2, 3]'
  size INTEGER
);

-- pg_status: last enqueued / started / completed collective per group.
CREATE TABLE fr_pg_status(
  run_id INTEGER NOT NULL,
  file_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  pg_id TEXT NOT NULL,
  last_enqueued INTEGER,
  last_started INTEGER,
  last_completed INTEGER
);

-- Flight-recorder entries.
CREATE TABLE fr_entry(
  run_id INTEGER NOT NULL,
  file_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  record_id INTEGER,
  pg_id INTEGER,
  pg_name TEXT,
  pg_desc TEXT,
  collective_seq_id INTEGER,       -- v1 seq_id lands here
  p2p_seq_id INTEGER,
  op_id INTEGER,
  profiling_name TEXT,             -- 'nccl:all_reduce'
  op TEXT,                         -- profiling_name without 'nccl:'
  is_p2p INTEGER,
  input_sizes TEXT,                -- JSON '[[1024, 1024]]'
  output_sizes TEXT,
  input_numel INTEGER,             -- sum over tensors
  output_numel INTEGER,
  input_dtypes TEXT,               -- JSON '["Float"]'
  output_dtypes TEXT,
  state TEXT,                      -- scheduled, started, completed
  time_created_ns INTEGER,
  time_started_ns INTEGER,         -- time_discovered_started_ns
  time_completed_ns INTEGER,       -- time_discovered_completed_ns
  duration_ms REAL,
  retired INTEGER,
  timeout_ms INTEGER,
  thread_name TEXT,
  thread_id TEXT
);
CREATE INDEX fr_entry_run ON fr_entry(run_id, pg_name, collective_seq_id);


-- ======================================================================
-- was 008-history.sql — named baselines, per-run metrics and their direction
-- (comparison and history: `profan tag`, `baseline`, `diff`, `trend`,
-- `check`).
--
-- `baseline` is the only table written by these commands; `run_metric` is
-- a view over the derived tables, so it works in the stock sqlite3
-- shell:
--   sqlite3 profan.db "SELECT * FROM run_metric WHERE metric = 'steps'"
--
-- "Per step" below always means per (rank, step) row of `step`, the same
-- divisor top-kernels uses for per_step_ms.

-- Named baselines: `profan baseline set main 42`.  Deleting the run
-- deletes its baselines (runref_delete walks every run_id column).
CREATE TABLE baseline(
  name TEXT PRIMARY KEY,           -- user-chosen name ("main", "release")
  run_id INTEGER NOT NULL,         -- the run it names
  set_at TEXT NOT NULL             -- ISO-8601 UTC time it was set
);

-- Which way a metric gets worse, for `profan check`: 1 higher is worse,
-- -1 lower is worse, 0 either way.  Metrics not listed (and not matched
-- by a pattern, lowest priority first) are 1.  Data: add your own rows.
CREATE TABLE metric_direction(
  pattern TEXT PRIMARY KEY,        -- GLOB pattern over run_metric.metric
  priority INTEGER NOT NULL,       -- lowest matching priority wins
  direction INTEGER NOT NULL       -- 1, -1 or 0
);

INSERT INTO metric_direction(pattern, priority, direction) VALUES
  ('gpu_util_pct', 10, -1),
  ('steps', 20, 0),
  ('cat_*', 30, 0),
  ('comm_overlap_pct', 40, -1);


-- ======================================================================
-- was 009-query-summaries.sql — per-run summary tables behind the operator,
-- launch, FLOP and per-step named queries (operators, launch-overhead,
-- tflops, checkpoint-recompute, steps, diff-ops), so that they read a few
-- hundred rows instead of every CPU op and runtime call of a run.
--
-- Filled at the end of each trace ingest (src/trace/derive_summary.c, one pass
-- over the run's rows; `profan rebuild` computes them again from the
-- raw rows).  Deleting a run deletes its rows here too.  Usable from the stock sqlite3 shell, e.g.
--   SELECT s.text, sum(calls), sum(self_ns) / 1e6 FROM cpu_op_summary c
--   JOIN string s ON s.id = c.name_id WHERE run_id = 1 GROUP BY 1;

-- CPU operators per run, rank, name and caller (the name of the enclosing
-- operator, 0 for top-level ops).  gpu_*: kernels, memcpys and memsets
-- whose launching op (op_id) is one of these calls.
CREATE TABLE cpu_op_summary(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  name_id INTEGER NOT NULL,        -- string.id of the op name
  parent_name_id INTEGER NOT NULL, -- string.id of the parent op's name, or 0
  calls INTEGER NOT NULL,
  total_ns INTEGER NOT NULL,       -- sum of dur
  self_ns INTEGER NOT NULL,        -- sum of coalesce(self_dur, dur)
  gpu_n INTEGER NOT NULL,          -- GPU records launched directly
  gpu_ns INTEGER NOT NULL,         -- their total duration
  PRIMARY KEY(run_id, rank, name_id, parent_name_id)
) WITHOUT ROWID;

-- Input shapes per operator name: calls per input_dims text.
CREATE TABLE cpu_op_shape_summary(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  name_id INTEGER NOT NULL,
  input_dims_id INTEGER NOT NULL,  -- string.id of the input dims JSON
  calls INTEGER NOT NULL,
  PRIMARY KEY(run_id, rank, name_id, input_dims_id)
) WITHOUT ROWID;

-- Operators with a FLOP count (cpu_op.flops), per name and flops_source.
-- kernel_*: the calls that launched at least one kernel (not memcpy or
-- memset), their FLOPs and the total time of those kernels.
CREATE TABLE cpu_op_flops_summary(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  name_id INTEGER NOT NULL,
  flops_source TEXT,               -- 'arg' or 'estimate'
  calls INTEGER NOT NULL,
  flops REAL NOT NULL,
  kernel_calls INTEGER NOT NULL,
  kernel_flops REAL NOT NULL,
  kernel_ns INTEGER NOT NULL
);
CREATE INDEX cpu_op_flops_summary_run ON cpu_op_flops_summary(run_id, rank);

-- CUDA runtime/driver calls per run, rank, name and kind, with the GPU
-- records (kernel, memcpy, memset) they launched (runtime_id): the launch
-- delay is the record's start minus the call's start.  recompute_*:
-- kernels launched under a checkpoint/recompute op (in_recompute = 1).
CREATE TABLE runtime_summary(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  name_id INTEGER NOT NULL,
  kind TEXT NOT NULL,              -- 'runtime' or 'driver'
  calls INTEGER NOT NULL,
  total_ns INTEGER NOT NULL,
  max_ns INTEGER NOT NULL,
  launches INTEGER NOT NULL,       -- GPU records launched
  delay_ns INTEGER NOT NULL,       -- sum of their launch delays
  max_delay_ns INTEGER,            -- NULL without launches
  short_launches INTEGER NOT NULL, -- launched records shorter than 10 µs
  recompute_kernels INTEGER NOT NULL,
  recompute_kernel_ns INTEGER NOT NULL,
  PRIMARY KEY(run_id, rank, name_id, kind)
) WITHOUT ROWID;

-- Kernels per run, rank and step (kernel.step; kernels outside every step
-- are left out).
CREATE TABLE step_kernel_summary(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  step INTEGER NOT NULL,
  kernels INTEGER NOT NULL,
  kernel_ns INTEGER NOT NULL,
  PRIMARY KEY(run_id, rank, step)
) WITHOUT ROWID;


-- ======================================================================
-- was 011-steady-steps.sql — steady-state steps, per-step samples, run
-- fingerprints and the defaults of the regression gate (`profan check`).
--
-- Read side only: views over `step`, `step_time`, `gpu_op_summary` and
-- `cpu_op_summary`, plus two small parameter tables (data, not code:
-- change a row to change the rule everywhere).  Every step statistic
-- (the steps query, run_metric, the step-variation rule, the report
-- summary and the gate) reads steady steps from the view step_steady.
-- All of it works in the stock sqlite3 shell:
--   sqlite3 profan.db 'SELECT step, dur, steady, reason FROM step_steady'

-- The steady-step rule (as 040 below made it: a fixed tolerance).  Per
-- run and rank, over the rank's steps in time order, with M the median
-- step duration of the rank:
--   warm-up: the leading steps before the first step within
--            tolerance_pct of M, at most (n - 1) / 2 of the n steps;
--   cut:     the last step when it is outside tolerance_pct of M (the
--            profiler window's end: a step cut short, or one carrying
--            the flush);
--   ranks with fewer than min_steps steps keep every step.
-- Every other step is steady (a slow step in the middle of a run is
-- real variation, not warm-up).
CREATE TABLE steady_param(
  name TEXT PRIMARY KEY,
  value REAL NOT NULL,
  doc TEXT NOT NULL
);

INSERT INTO steady_param(name, value, doc) VALUES
  ('tolerance_pct', 20.0, 'a leading step further than this from the '
   || 'rank''s median step is warm-up, a last one cut, %'),
  ('min_steps', 3.0, 'ranks with fewer steps keep every step steady');

-- Defaults of `profan check` (the command-line options override them).
CREATE TABLE gate_param(
  name TEXT PRIMARY KEY,
  value REAL NOT NULL,
  doc TEXT NOT NULL
);

INSERT INTO gate_param(name, value, doc) VALUES
  ('threshold_pct', 5.0, 'smallest change in the bad direction that counts as a regression, %'),
  ('alpha', 0.05, 'error probability of each end of the confidence interval of the shift (one-sided level of a regression claim)'),
  ('z', 3.0, 'robust z-score of the run within its comparable history above which it is outside the run-to-run noise'),
  ('last', 10.0, 'history: at most this many comparable runs'),
  ('min_history', 5.0, 'fewer comparable runs in the history: no run-to-run noise test'),
  ('min_steps', 3.0, 'fewer steady steps in a run: the step samples cannot decide'),
  ('fingerprint_top', 10.0, 'fingerprint: the top N kernels and the top N CPU operators by total time'),
  ('fingerprint_min_shared_pct', 50.0, 'comparable runs share at least this share of their top kernels and of their top operators (|A and B| / |A or B|), %');

-- The fingerprint of a run's workload: its top kernels and top CPU
-- operators by total time (fingerprint_top of each; ProfilerStep
-- annotations left out), and its rank count (view run_rank_count).
-- `profan check` keeps a run in the history only when it has the
-- baseline's rank count and shares fingerprint_min_shared_pct of each
-- set with it.
-- (view run_fingerprint: final form in "was 041-gate-history.sql")

-- Ranks per run: those with steps, GPU activity or a trace file.
CREATE VIEW run_rank_count AS
SELECT r.id AS run_id, (
  SELECT count(*) FROM (
    SELECT rank FROM step WHERE run_id = r.id
    UNION SELECT rank FROM gpu_busy WHERE run_id = r.id
    UNION SELECT rank FROM run_file WHERE run_id = r.id
      AND kind = 'trace' AND rank IS NOT NULL)) AS ranks
FROM run r;

-- Which way the steady-step metrics get worse.
INSERT INTO metric_direction(pattern, priority, direction) VALUES
  ('steady_steps', 21, 0),
  ('step_gpu_busy_pct', 11, -1);


-- ======================================================================
-- was 012-verdicts.sql — one definition per concept that a verdict depends on
-- (issue 13): which GPU kernels are communication, and the threshold of
-- each piece of advice.  Views, named queries, report rules and the ingest
-- sweeps all read these tables; change a row and every one of them
-- follows (the sweeps at the next ingest).

-- Communication kernels, by name.  A kernel is communication when its
-- name matches one of these GLOB patterns (case-sensitive, the whole
-- name: use '*' on both sides for a substring).  `op` is the collective
-- the name implies when the name does not say it in NCCL's own form
-- (NULL: parsed from an NCCL/RCCL name, else 'other').  Used by the
-- comm_kernel view, the categories (category_comm), comm_overlap and the
-- wall-time 'comm' class (derive_trace.c), the collective table
-- (derive_comm.c) and through them every finding.
CREATE TABLE comm_pattern(
  pattern TEXT PRIMARY KEY,        -- GLOB over the kernel name
  family TEXT NOT NULL,            -- nccl, symm_mem, custom_allreduce, ...
  op TEXT,                         -- all_reduce, all_gather, ... or NULL
  note TEXT                        -- where the name comes from
);

INSERT INTO comm_pattern(pattern, family, op, note) VALUES
  ('ncclKernel_*', 'nccl', NULL, 'NCCL 2.8-2.18 and RCCL: ncclKernel_AllReduce_RING_LL_Sum_float'),
  ('ncclDevKernel_*', 'nccl', NULL, 'NCCL 2.19+: ncclDevKernel_AllGather_RING_LL, ncclDevKernel_Generic'),
  ('nccl*Kernel*', 'nccl', NULL, 'NCCL <= 2.7: ncclAllReduceRingLLKernel_sum_f32, ncclSendRecvKernel_copy_i8; NCCL 2.27 symmetric kernels ncclSymkDevKernel_*'),
  ('mscclKernel_*', 'rccl', NULL, 'RCCL MSCCL: mscclKernel_Sum_float_LL'),
  ('*multimem_all_reduce*', 'symm_mem', 'all_reduce', 'PyTorch symmetric memory: multimem_all_reduce_kernel (vLLM on B200)'),
  ('*multimem_one_shot_all_reduce*', 'symm_mem', 'all_reduce', 'PyTorch symmetric memory one-shot multimem all-reduce'),
  ('*multimem_all_gather*', 'symm_mem', 'all_gather', 'PyTorch symmetric memory: multimem_all_gather_kernel'),
  ('*one_shot_all_reduce*', 'symm_mem', 'all_reduce', 'PyTorch symmetric memory: one_shot_all_reduce_kernel'),
  ('*two_shot_all_reduce*', 'symm_mem', 'all_reduce', 'PyTorch symmetric memory: two_shot_all_reduce_kernel'),
  ('*cross_device_reduce*', 'custom_allreduce', 'all_reduce', 'vLLM / SGLang custom all-reduce: cross_device_reduce_1stage, _2stage'),
  ('*oneShotAllReduce*', 'custom_allreduce', 'all_reduce', 'TensorRT-LLM: oneShotAllReduceKernel'),
  ('*twoShotAllReduce*', 'custom_allreduce', 'all_reduce', 'TensorRT-LLM: twoShotAllReduceKernel'),
  ('*allreduce_fusion_kernel*', 'custom_allreduce', 'all_reduce', 'TensorRT-LLM / FlashInfer: allreduce_fusion_kernel_oneshot_lamport'),
  ('*lamport*AllReduce*', 'custom_allreduce', 'all_reduce', 'TensorRT-LLM lamport all-reduce kernels'),
  ('*mscclpp*', 'mscclpp', NULL, 'MSCCL++ kernels');

-- The communication kernels of each run: every kernel name the run's
-- activity summary holds that a comm_pattern matches (the first pattern
-- by name gives family and op).
CREATE VIEW comm_kernel AS
SELECT g.run_id, g.name_id, s.text AS name,
  (SELECT p.family FROM comm_pattern p WHERE s.text GLOB p.pattern
   ORDER BY p.pattern LIMIT 1) AS family,
  (SELECT p.op FROM comm_pattern p WHERE s.text GLOB p.pattern
   AND p.op IS NOT NULL ORDER BY p.pattern LIMIT 1) AS op
FROM (SELECT DISTINCT run_id, name_id FROM gpu_op_summary
      WHERE kind = 'kernel') g
JOIN string s ON s.id = g.name_id
WHERE EXISTS (SELECT 1 FROM comm_pattern p WHERE s.text GLOB p.pattern);

-- The category a communication kernel gets in each scheme (a scheme not
-- listed here classifies communication kernels by its own rules only).
CREATE TABLE category_comm(
  scheme TEXT PRIMARY KEY REFERENCES category_scheme(scheme),
  category TEXT NOT NULL
);

INSERT INTO category_comm(scheme, category) VALUES
  ('detailed', 'NCCL / communication'),
  ('coarse', 'comm');

CREATE VIEW kernel_category AS
SELECT n.name_id, s.text AS name, cs.scheme,
  CASE
    WHEN cc.category IS NOT NULL AND EXISTS
      (SELECT 1 FROM comm_pattern p WHERE s.text GLOB p.pattern)
    THEN cc.category
    ELSE coalesce((SELECT r.category FROM category_rule r
                   WHERE r.scheme = cs.scheme
                     AND instr(lower(s.text), lower(r.pattern)) > 0
                   ORDER BY r.priority LIMIT 1), cs.default_category)
  END AS category
FROM (SELECT DISTINCT name_id FROM gpu_op_summary) n
JOIN string s ON s.id = n.name_id
CROSS JOIN category_scheme cs
LEFT JOIN category_comm cc ON cc.scheme = cs.scheme;

-- What each rank did before a collective, for the straggler analysis
-- (derive_comm.c): the window from the end of the rank's previous
-- collective (in any group; the first: its first GPU activity) to this
-- collective's start, the compute kernel time that ended inside it (at
-- most the window), and the rest of the window (GPU idle: the host did
-- not feed the GPU).
CREATE TABLE collective_window(
  collective_id INTEGER PRIMARY KEY, -- collective.id
  run_id INTEGER NOT NULL,
  window_ns INTEGER NOT NULL,
  compute_ns INTEGER NOT NULL,
  idle_ns INTEGER NOT NULL,
  -- the straggler measures (was 050-straggler-clock.sql, which says what
  -- each is)
  arrival_ns INTEGER,
  wait_ns INTEGER,
  exposed_wait_ns INTEGER,
  queued_ns INTEGER
);
CREATE INDEX collective_window_run ON collective_window(run_id);

-- One threshold per piece of advice, stored once: the report rule and the
-- named query that give the same advice both read it (a --param of either
-- still overrides it for one command).
CREATE TABLE advice_threshold(
  advice TEXT NOT NULL,            -- the rule / query family
  name TEXT NOT NULL,              -- the parameter it backs
  value NUMERIC NOT NULL,        -- 10 stays 10 (not 10.0) in output
  unit TEXT NOT NULL,
  used_by TEXT NOT NULL,           -- rules and queries that read it
  description TEXT NOT NULL,
  PRIMARY KEY(advice, name)
) WITHOUT ROWID;

INSERT INTO advice_threshold(advice, name, value, unit, used_by, description) VALUES
  ('fragmentation', 'inactive_pct', 10, '%', 'rule fragmentation, query fragmentation (recommendation)', 'fragmented bytes (free inside segments that hold live'
    || ' blocks) over reserved bytes of a snapshot above which'
    || ' expandable_segments is recommended'),
  ('fragmentation', 'min_segments', 10, 'segments', 'rule fragmentation, query fragmentation (recommendation)', 'more segments holding live blocks than this are needed for'
    || ' the recommendation'),
  ('straggler', 'min_spread_us', 50, 'us', 'rule straggler, queries rank-skew and collective-skew', 'a collective has a late rank only when the last rank started more than this after the first (closer starts are ties, not waiting)');


-- ======================================================================
-- was 013-hta-analyses.sql — the analyses users know from Holistic Trace
-- Analysis (HTA), as views over the trace tables, plus the critical path
-- per step that derive_hta.c stores at ingest.  Everything but the
-- critical path is a view, so a change to the kernel categories
-- (category_rule, scheme 'coarse': 'comm' and 'memory') or to the
-- thresholds in hta_setting applies to runs already ingested.
-- Times are ns.  README "HTA analyses" states each definition and how it
-- differs from HTA's.

-- Thresholds, stored once; the views, queries and report read them here.
CREATE TABLE hta_setting(
  name TEXT PRIMARY KEY,
  value REAL NOT NULL,
  description TEXT NOT NULL
);

INSERT INTO hta_setting(name, value, description) VALUES
  ('kernel_wait_ns', 30000.0, 'idle gap on a stream below this (ns), not waiting on the host, is kernel wait');

-- Critical path of every (rank, step), from derive_hta.c: walked back
-- from the step end, it is a chain of contiguous segments from the step
-- start to its end whose durations add up to step.dur.  Segment classes:
--   cpu_op    self time of the innermost CPU op running
--   runtime   a CUDA call that is neither a launch nor a sync
--   launch    a launch call, and launch call start -> GPU op start
--   sync      a synchronising call waiting after the GPU work it waited
--             for ended (or the call itself when it waited for nothing)
--   kernel, memcpy, memset   GPU op time
--   idle      no CPU event recorded on any thread (Python, the framework)
--   gpu_wait  a stream idle before its next op although that op had been
--             launched: waiting on its stream or on another stream
-- Stored twice, compactly:
--   hta_critical_path     the chain as runs on one lane: consecutive
--                         segments on the same CPU thread or GPU stream;
--   hta_critical_path_op  the chain's time per (class, name): shares by
--                         class and top contributors.
CREATE TABLE hta_critical_path(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  step INTEGER NOT NULL,
  seq INTEGER NOT NULL,            -- 0 = the run at the step start
  side TEXT NOT NULL,              -- 'cpu' or 'gpu'
  lane INTEGER,                    -- CPU tid, or GPU stream
  ts INTEGER NOT NULL,
  dur INTEGER NOT NULL,
  class TEXT NOT NULL,             -- the class with the most time in it
  name_id INTEGER,                 -- its longest single contributor
  segments INTEGER NOT NULL        -- segments merged into it
);
CREATE INDEX hta_critical_path_run ON hta_critical_path(run_id, rank, step);

CREATE TABLE hta_critical_path_op(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  step INTEGER NOT NULL,
  class TEXT NOT NULL,
  name_id INTEGER,                 -- op / call / kernel name; NULL for
                                   -- idle and gpu_wait
  ns INTEGER NOT NULL,             -- time on the path
  segments INTEGER NOT NULL
);
CREATE INDEX hta_critical_path_op_run
  ON hta_critical_path_op(run_id, rank, step);

-- Every GPU activity (kernels, memcpy, memset; not cuda_sync rows) with
-- its class: 'comm' and 'memory' from the coarse kernel categories,
-- memcpy/memset rows 'memory', every other kernel 'compute'.
CREATE VIEW hta_gpu_op AS
WITH kc AS MATERIALIZED (
  SELECT name_id, category FROM kernel_category WHERE scheme = 'coarse'
)
SELECT k.run_id, k.rank, k.device, k.stream, 'kernel' AS kind,
  k.id AS row_id, k.ts, k.dur, k.name_id, k.runtime_id, k.step,
  CASE kc.category WHEN 'comm' THEN 'comm' WHEN 'memory' THEN 'memory'
    ELSE 'compute' END AS class
FROM kernel k LEFT JOIN kc ON kc.name_id = k.name_id
UNION ALL
SELECT m.run_id, m.rank, m.device, m.stream, m.kind, m.id, m.ts, m.dur,
  m.name_id, m.runtime_id, m.step, 'memory'
FROM gpu_mem_op m;

-- Overlap pieces: the GPU active span of each (rank, device) cut at every
-- start and end, each piece labelled by which classes run in it
-- (compute = comm = memory = 0 is idle).  The pieces tile last end -
-- first start.  Filter this view by run_id directly (the named queries
-- do): SQLite pushes a run_id filter into it, not through an aggregate
-- over it, so hta_overlap_slice / hta_temporal read every run.
CREATE VIEW hta_overlap_piece AS
WITH ev AS (
  SELECT run_id, rank, device, ts AS t,
    (class = 'compute') AS dc, (class = 'comm') AS dn, (class = 'memory') AS dm
  FROM hta_gpu_op
  UNION ALL
  SELECT run_id, rank, device, ts + dur,
    -(class = 'compute'), -(class = 'comm'), -(class = 'memory')
  FROM hta_gpu_op
),
live AS (
  -- RANGE: the sums at t include every start and end at t; rows tied at
  -- t get t_next = t: zero-length pieces, left out below.
  SELECT run_id, rank, device, t,
    lead(t) OVER (PARTITION BY run_id, rank, device ORDER BY t) AS t_next,
    sum(dc) OVER w AS nc, sum(dn) OVER w AS nn, sum(dm) OVER w AS nm
  FROM ev
  WINDOW w AS (PARTITION BY run_id, rank, device ORDER BY t
               RANGE UNBOUNDED PRECEDING)
)
SELECT run_id, rank, device, t AS ts, t_next - t AS ns,
  (nc > 0) AS compute, (nn > 0) AS comm, (nm > 0) AS memory
FROM live WHERE t_next > t;

-- Overlap slices: ns per combination of classes per (rank, device).
CREATE VIEW hta_overlap_slice AS
SELECT run_id, rank, device, compute, comm, memory,
  sum(ns) AS ns, count(*) AS pieces
FROM hta_overlap_piece
GROUP BY run_id, rank, device, compute, comm, memory;

-- Temporal breakdown per (rank, device): idle + compute + non-compute =
-- span (first GPU start to last GPU end).  compute = union of compute
-- kernels; non-compute = GPU busy with no compute kernel running.
CREATE VIEW hta_temporal AS
SELECT run_id, rank, device,
  sum(ns) AS span_ns,
  sum(CASE WHEN compute + comm + memory = 0 THEN ns ELSE 0 END) AS idle_ns,
  sum(CASE WHEN compute THEN ns ELSE 0 END) AS compute_ns,
  sum(CASE WHEN NOT compute AND comm + memory > 0 THEN ns ELSE 0 END)
    AS non_compute_ns
FROM hta_overlap_piece
GROUP BY run_id, rank, device;

-- Idle intervals per stream: one row per GPU op that starts after every
-- earlier op of its stream has ended.  gap = start - the latest end
-- before it.  host_wait: the op's launch call started after that end
-- (the CPU was late); kernel_wait: otherwise, gap below kernel_wait_ns;
-- other: the rest (waits on other streams, events, ...).
-- (view hta_idle_interval: final form in "was 094-hta-stored-series.sql")

-- Launch queue per stream as a step function: one row per change point.
-- +1 when the launch call of a GPU op starts, -1 when the op starts on
-- the GPU; queue_length holds from ts until next_ts.  Ops without a
-- launch call (none recorded) are left out.  Ties: launches first.
-- (view hta_queue_length: final form in "was 094-hta-stored-series.sql")

-- Memory bandwidth of every memcpy / memset: bytes / duration (bytes per
-- ns = GB/s).  kind as HTA names it: 'Memcpy HtoD', ..., 'Memset'.
-- (view hta_memory_bw: final form in "was 061-memcpy-bandwidth-arg.sql")

-- Critical path per (rank, step) and class, % of the step.  A kernel of
-- the coarse 'comm' category is class comm_kernel.
CREATE VIEW hta_critical_path_share AS
WITH cm AS MATERIALIZED (
  SELECT name_id FROM kernel_category
  WHERE scheme = 'coarse' AND category = 'comm'
)
SELECT c.run_id, c.rank, c.step,
  CASE WHEN c.class = 'kernel' AND c.name_id IN cm THEN 'comm_kernel'
       ELSE c.class END AS class,
  sum(c.ns) AS ns, sum(c.segments) AS segments,
  round(100.0 * sum(c.ns) / max(s.dur, 1), 2) AS pct
FROM hta_critical_path_op c
JOIN step s ON s.run_id = c.run_id AND s.rank = c.rank AND s.step = c.step
GROUP BY c.run_id, c.rank, c.step,
  CASE WHEN c.class = 'kernel' AND c.name_id IN cm THEN 'comm_kernel'
       ELSE c.class END;

-- Headline numbers for run_metric (the lead unions hta_metric into it),
-- computed at ingest by derive_hta.c from the rows it loads for the
-- critical path, so that trend / check / diff read a few rows per run:
--   hta_idle_pct, hta_compute_pct, hta_non_compute_pct
--                         temporal breakdown, % of the GPU span (all GPUs)
--   hta_host_wait_pct     host-wait share of stream idle time, %
--   hta_queue_mean        time-weighted mean launch queue length of each
--                         rank's busiest stream (most ops), mean over ranks
--   hta_queue_blocked_ms  time with a queue at queue_full, per step
--   hta_copy_gbps         memcpy bytes / memcpy time, all directions
--   hta_cp_CLASS_pct      critical-path share of CLASS (comm_kernel for
--                         communication kernels), all steps
-- Same definitions as the views above, with the kernel categories and
-- thresholds of the time of the ingest (the views follow later changes).
CREATE TABLE hta_run_metric(
  run_id INTEGER NOT NULL,
  metric TEXT NOT NULL,
  value REAL
);
CREATE INDEX hta_run_metric_run ON hta_run_metric(run_id);

CREATE VIEW hta_metric AS
SELECT run_id, metric, value FROM hta_run_metric;

INSERT INTO metric_direction(pattern, priority, direction) VALUES
  ('hta_idle_pct', 50, 1),
  ('hta_compute_pct', 51, -1),
  ('hta_non_compute_pct', 52, 0),
  ('hta_host_wait_pct', 53, 1),
  ('hta_queue_mean', 54, 0),
  ('hta_queue_blocked_ms', 55, 1),
  ('hta_copy_gbps', 56, -1),
  ('hta_cp_*', 57, 0);

-- What a CUDA runtime / driver call does, for the critical path: 'launch'
-- (enqueues GPU work and returns) or 'sync' (blocks the CPU until GPU
-- work ends).  GLOB patterns over the call name; lowest priority wins;
-- calls matching nothing are plain runtime time.  Data: add rows.
CREATE TABLE hta_runtime_role(
  pattern TEXT PRIMARY KEY,
  priority INTEGER NOT NULL,
  role TEXT NOT NULL               -- 'launch' or 'sync'
);

INSERT INTO hta_runtime_role(pattern, priority, role) VALUES
  ('*Synchronize*', 10, 'sync'),
  ('cudaMemcpy', 11, 'sync'),
  ('cudaMemcpy2D', 12, 'sync'),
  ('hipMemcpy', 13, 'sync'),
  ('cudaLaunchKernel*', 20, 'launch'),
  ('cuLaunchKernel*', 21, 'launch'),
  ('cudaLaunchCooperativeKernel*', 22, 'launch'),
  ('cudaGraphLaunch', 23, 'launch'),
  ('cudaMemcpyAsync', 24, 'launch'),
  ('cudaMemsetAsync', 25, 'launch'),
  ('cudaMemcpy2DAsync', 26, 'launch'),
  ('hipLaunchKernel', 27, 'launch'),
  ('hipExtModuleLaunchKernel', 28, 'launch'),
  ('hipMemcpyAsync', 29, 'launch'),
  ('hipMemsetAsync', 30, 'launch'),
  ('hipMemcpyWithStream', 31, 'launch');


-- ======================================================================
-- was 014-interface.sql — what the raw columns mean, and views that rank
-- keep their order.
--
-- Raw tables keep Kineto's times converted to integer nanoseconds in
-- columns named ts (start) and dur (duration), not microseconds as in the
-- trace files.  column_unit states the unit of every time, size and share
-- column of every table and view, from one naming rule:
--   ts, dur, self_dur, first_ts, last_end, *_ts, *_dur, *_ns  ns
--   *_us                                                    us
--   *_ms                                                    ms
--   bytes, *_bytes                                          bytes
--   pct, *_pct                                              %
-- It reads the schema itself, so tables and views added later are listed
-- too:  sqlite3 profan.db "SELECT * FROM column_unit WHERE table_name='kernel'"

CREATE VIEW column_unit AS
SELECT m.name AS table_name, m.type AS type, p.name AS column_name,
  CASE
    WHEN p.name IN ('ts', 'dur', 'self_dur', 'first_ts', 'last_end')
      OR p.name LIKE '%\_ts' ESCAPE '\' OR p.name LIKE '%\_dur' ESCAPE '\'
      OR p.name LIKE '%\_ns' ESCAPE '\' THEN 'ns'
    WHEN p.name LIKE '%\_us' ESCAPE '\' THEN 'us'
    WHEN p.name LIKE '%\_ms' ESCAPE '\' THEN 'ms'
    WHEN p.name = 'bytes' OR p.name LIKE '%\_bytes' ESCAPE '\' THEN 'bytes'
    WHEN p.name = 'pct' OR p.name LIKE '%\_pct' ESCAPE '\' THEN '%'
  END AS unit
FROM sqlite_schema m JOIN pragma_table_info(m.name) p
WHERE m.type IN ('table', 'view') AND m.name NOT LIKE 'sqlite\_%' ESCAPE '\'
  AND unit IS NOT NULL;

-- A ranking view ranks: longest total time first within each run.
CREATE VIEW top_kernels AS
SELECT g.run_id, g.kind, s.text AS name,
  sum(g.n) AS count,
  sum(g.total_ns) AS total_ns,
  sum(g.total_ns) / sum(g.n) AS avg_ns,
  min(g.min_ns) AS min_ns,
  max(g.max_ns) AS max_ns,
  round(100.0 * sum(g.total_ns) /
        (SELECT sum(t.total_ns) FROM gpu_op_summary t
         WHERE t.run_id = g.run_id), 2) AS pct
FROM gpu_op_summary g JOIN string s ON s.id = g.name_id
GROUP BY g.run_id, g.name_id, g.kind
ORDER BY g.run_id, sum(g.total_ns) DESC, s.text;

-- The same for the categories: largest first within run, rank, scheme.
CREATE VIEW category_breakdown AS
SELECT g.run_id, g.rank, c.scheme, c.category,
  sum(g.n) AS count,
  sum(g.total_ns) AS total_ns,
  round(sum(g.total_ns) / 1e6, 3) AS total_ms,
  round(100.0 * sum(g.total_ns) /
        (SELECT sum(t.total_ns) FROM gpu_op_summary t
         WHERE t.run_id = g.run_id AND t.rank = g.rank), 2) AS pct
FROM gpu_op_summary g
JOIN kernel_category c ON c.name_id = g.name_id
GROUP BY g.run_id, g.rank, c.scheme, c.category
ORDER BY g.run_id, g.rank, c.scheme, sum(g.total_ns) DESC, c.category;

-- Why a named query printed no rows: the inputs a table comes from, in
-- the order they are checked.  `profan query` looks up the tables the
-- query's SQL names; the first one the run has no rows in gives the line
-- on stderr: "run 3 has no memory snapshot".  Data: add your own rows.
CREATE TABLE input_source(
  priority INTEGER PRIMARY KEY,
  tbl TEXT NOT NULL,               -- a table with a run_id column
  what TEXT NOT NULL               -- "memory snapshot": what the run lacks
);

INSERT INTO input_source(priority, tbl, what) VALUES
  (1, 'fr_entry', 'flight-recorder dump'),
  (2, 'nccl_comm', 'NCCL log'),
  (3, 'nccl_coll', 'NCCL log with collective calls'),
  (4, 'nccl_warning', 'NCCL warning'),
  (10, 'kernel', 'trace with GPU kernels'),
  (11, 'gpu_op_summary', 'trace with GPU activity'),
  (12, 'gpu_busy', 'trace with GPU activity'),
  (13, 'cpu_op', 'trace with CPU operators'),
  (14, 'cpu_op_summary', 'trace with CPU operators'),
  (15, 'runtime_call', 'trace with CUDA runtime calls'),
  (16, 'runtime_summary', 'trace with CUDA runtime calls'),
  (17, 'gpu_mem_op', 'memcpy or memset in its trace'),
  (20, 'step', 'steps (no ProfilerStep annotations and no GPU activity)'),
  (21, 'step_time', 'steps (no ProfilerStep annotations and no GPU activity)'),
  (30, 'snapshot', 'memory snapshot'),
  (31, 'segment', 'memory snapshot'),
  (32, 'alloc_event', 'allocation trace in its memory snapshot'),
  (33, 'memory_event', 'profiler memory events'),
  (40, 'collective', 'communication kernels'),
  (41, 'comm_overlap', 'communication kernels');


-- ======================================================================
-- was 016-op-model.sql — per-operator performance model (issue 21): what kind
-- each operator is, the FLOPs and bytes a GEMM must do from the shapes the
-- trace records, the peak of the GPU it ran on, and the GPU time of each
-- call counted once however its kernels overlap.  Data tables (edit them
-- with SQL and the queries follow) plus plain views (stock sqlite3 shell).
-- Read by queries/op-roofline.sql, queries/op-kinds.sql and op_metric.

-- Peak dense (no sparsity) throughput per GPU, matched against
-- device.name with GLOB; the lowest `priority` wins.  TFLOP/s (int8:
-- TOP/s) and TB/s; NULL where the GPU has no such unit.  Sources, vendor
-- datasheets (the "with sparsity" figures halved):
--   V100: NVIDIA Tesla V100 GPU Accelerator datasheet (SXM2 / PCIe).
--   A100: NVIDIA A100 Tensor Core GPU datasheet (40GB / 80GB, SXM / PCIe).
--   H100: NVIDIA H100 Tensor Core GPU datasheet (SXM / PCIe / NVL).
--   H200: NVIDIA H200 Tensor Core GPU datasheet (SXM).
--   B200: NVIDIA HGX B200 / DGX B200 datasheet, per GPU.
--   MI250, MI250X, MI300X: AMD Instinct product pages (peak matrix FP32
--     used as fp32; MI250 has no fp8).
--   RTX 2080 Ti: NVIDIA Turing architecture whitepaper, GeForce RTX 2080
--     Ti (FP16 tensor with FP32 accumulate, which PyTorch uses).
-- A bare "NVIDIA H100" is taken as the SXM part.  AMD GPUs that ROCm
-- names "AMD Radeon Graphics" match nothing: add a row for your site.
CREATE TABLE gpu_spec(
  pattern TEXT NOT NULL,           -- GLOB against device.name
  priority INTEGER NOT NULL,       -- lower first
  gpu TEXT NOT NULL,               -- the part the numbers are for
  fp32 REAL, tf32 REAL, bf16 REAL, fp16 REAL, fp8 REAL, int8 REAL,
  mem_tbps REAL NOT NULL,          -- memory bandwidth, TB/s
  source TEXT NOT NULL,
  -- the L2 tier of the roofline (was 064-hierarchical-roofline.sql,
  -- which gives the sources)
  l2_mb REAL,                      -- MiB; NULL: no L2 tier
  l2_tbps REAL,                    -- TB/s; NULL: no L2 tier
  l2_source TEXT
);

-- Element types as the trace's "Input type" spells them: bytes per
-- element and the gpu_spec column holding their peak (NULL: none).
CREATE TABLE op_dtype(
  type TEXT PRIMARY KEY,
  size INTEGER NOT NULL,
  peak TEXT                        -- 'fp32', 'bf16', 'fp16', 'fp8', 'int8'
);

INSERT INTO op_dtype(type, size, peak) VALUES
  ('float', 4, 'fp32'),
  ('double', 8, NULL),
  ('c10::Half', 2, 'fp16'),
  ('c10::BFloat16', 2, 'bf16'),
  ('c10::Float8_e4m3fn', 1, 'fp8'),
  ('c10::Float8_e5m2', 1, 'fp8'),
  ('c10::Float8_e4m3fnuz', 1, 'fp8'),
  ('c10::Float8_e5m2fnuz', 1, 'fp8'),
  ('signed char', 1, 'int8'),
  ('unsigned char', 1, 'int8'),
  ('int', 4, NULL),
  ('long int', 8, NULL);

-- Operator name (GLOB) -> kind; the lowest priority that matches wins.
-- The GEMM kinds have FLOP and byte formulas (view op_gemm), the
-- streaming kinds a per-element cost (op_kind_cost, view op_stream); the
-- others are timed and counted, their efficiency left unknown.  An
-- operator that matches nothing is of kind 'unknown'.
CREATE TABLE op_kind_rule(
  pattern TEXT NOT NULL,
  priority INTEGER NOT NULL,
  kind TEXT NOT NULL
);

INSERT INTO op_kind_rule(pattern, priority, kind) VALUES
  ('aten::_scaled_mm', 10, 'gemm_scaled'),
  ('*scaled_mm*', 11, 'gemm_scaled'),
  ('aten::mm', 10, 'gemm'),
  ('aten::addmm', 10, 'gemm'),
  ('aten::matmul', 10, 'gemm'),
  ('aten::linear', 10, 'gemm'),
  ('aten::bmm', 10, 'gemm_batched'),
  ('aten::baddbmm', 10, 'gemm_batched'),
  ('aten::addbmm', 10, 'gemm_batched'),
  ('*onvolution*ackward*', 20, 'conv_bwd'),
  ('*conv*backward*', 21, 'conv_bwd'),
  ('aten::*conv*', 22, 'conv_fwd'),
  ('*onvolution*', 23, 'conv_fwd'),
  ('*attention*backward*', 29, 'attention_bwd'),
  ('*flash*backward*', 30, 'attention_bwd'),
  ('*flash*', 31, 'attention_fwd'),
  ('*attention*', 31, 'attention_fwd'),
  ('*layer_norm*', 40, 'norm'),
  ('*rms_norm*', 40, 'norm'),
  ('*group_norm*', 40, 'norm'),
  ('*batch_norm*', 40, 'norm'),
  ('*softmax*', 41, 'softmax'),
  ('*embedding*', 42, 'embedding'),
  ('*rotary*', 43, 'rope'),
  ('*rope*', 43, 'rope'),
  ('*moe*', 44, 'moe'),
  ('*fused_experts*', 44, 'moe'),
  ('aten::copy_', 50, 'copy'),
  ('aten::_to_copy', 50, 'copy'),
  ('aten::clone', 50, 'copy'),
  ('aten::contiguous', 50, 'copy'),
  ('aten::cat', 50, 'copy'),
  ('aten::index*', 51, 'copy'),
  ('aten::sum', 60, 'reduction'),
  ('aten::mean', 60, 'reduction'),
  ('aten::amax', 60, 'reduction'),
  ('aten::max', 60, 'reduction'),
  ('aten::norm', 60, 'reduction'),
  ('aten::argmax', 60, 'reduction'),
  ('aten::add*', 70, 'elementwise'),
  ('aten::sub*', 70, 'elementwise'),
  ('aten::mul*', 70, 'elementwise'),
  ('aten::div*', 70, 'elementwise'),
  ('aten::relu*', 70, 'elementwise'),
  ('aten::gelu*', 70, 'elementwise'),
  ('aten::silu*', 70, 'elementwise'),
  ('aten::sigmoid*', 70, 'elementwise'),
  ('aten::tanh*', 70, 'elementwise'),
  ('aten::exp*', 70, 'elementwise'),
  ('aten::pow*', 70, 'elementwise'),
  ('aten::fill_', 70, 'elementwise'),
  ('aten::zero_', 70, 'elementwise'),
  ('aten::where', 70, 'elementwise'),
  ('aten::neg', 70, 'elementwise'),
  ('aten::rsqrt', 70, 'elementwise'),
  ('aten::threshold_backward', 70, 'elementwise');

-- Streaming kinds (memory-bound by design): FLOPs = flops_per_elem x the
-- largest tensor input's elements (the output of an elementwise op with
-- broadcasting); bytes = every tensor input read once + that output
-- written once, at the first tensor input's element size.  Tensor inputs
-- are the "Input Dims" entries whose "Input type" is in op_dtype.  The
-- per-element counts are conventions, stated here: 1 for elementwise, 5
-- for a normalization (mean, variance, normalize, scale, shift) and for a
-- softmax (max, subtract, exp, sum, divide), 0 for a copy.
CREATE TABLE op_kind_cost(
  kind TEXT PRIMARY KEY,
  flops_per_elem REAL NOT NULL
);

INSERT INTO op_kind_cost(kind, flops_per_elem) VALUES
  ('elementwise', 1.0),
  ('norm', 5.0),
  ('softmax', 5.0),
  ('copy', 0.0);

-- Scaled dot-product attention, forward, [B,H,L,D] layout: q [B,H,L,D],
-- k [B,Hk,S,D], v [B,Hk,S,Dv].  FLOPs = 2BHLS(D + Dv) (Q·Kᵀ and P·V),
-- half of it when the is_causal argument (Concrete Inputs, position
-- causal_arg) is True; softmax and scaling are not counted.  bytes = q,
-- k, v read and the [B,H,L,Dv] output written once.
CREATE TABLE op_attention(
  name TEXT PRIMARY KEY,
  causal_arg INTEGER NOT NULL      -- index of is_causal in the inputs
);

INSERT INTO op_attention(name, causal_arg) VALUES
  ('aten::scaled_dot_product_attention', 5),
  ('aten::_scaled_dot_product_flash_attention', 4),
  ('aten::_scaled_dot_product_efficient_attention', 6),
  ('aten::_scaled_dot_product_cudnn_attention', 6);

-- Exposed memcpy time per (run, rank, device): the time copies run while
-- no kernel (compute or communication) runs on the same GPU, i.e.
-- |copies ∪ kernels| - |kernels|; copies that overlap each other count
-- once.  memcpy_ns is |copies| for comparison.
CREATE VIEW memcpy_exposed AS
WITH ev AS (
  SELECT run_id, rank, device, 'all' AS part, ts, ts + dur AS te
  FROM kernel
  UNION ALL
  SELECT run_id, rank, device, 'kernel', ts, ts + dur FROM kernel
  UNION ALL
  SELECT run_id, rank, device, 'all', ts, ts + dur FROM gpu_mem_op
  WHERE kind = 'memcpy'
  UNION ALL
  SELECT run_id, rank, device, 'memcpy', ts, ts + dur FROM gpu_mem_op
  WHERE kind = 'memcpy'
),
w AS (
  SELECT run_id, rank, device, part, ts, te,
    max(te) OVER (PARTITION BY run_id, rank, device, part ORDER BY ts, te
                  ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev
  FROM ev
),
u AS (
  SELECT run_id, rank, device, part,
    sum(max(0, te - max(ts, coalesce(prev, ts)))) AS ns
  FROM w GROUP BY run_id, rank, device, part
)
SELECT a.run_id, a.rank, a.device, m.ns AS memcpy_ns,
  a.ns - coalesce(k.ns, 0) AS exposed_ns
FROM u a JOIN u m ON m.run_id = a.run_id AND m.rank = a.rank
  AND m.device IS a.device AND m.part = 'memcpy'
LEFT JOIN u k ON k.run_id = a.run_id AND k.rank = a.rank
  AND k.device IS a.device AND k.part = 'kernel'
WHERE a.part = 'all';

-- Which way op_metric's metrics get worse for `profan check` (the others
-- keep the default: higher is worse).  kernels_without_launch says how
-- the trace was cut, not how fast the run is: either way.
INSERT INTO metric_direction(pattern, priority, direction) VALUES
  ('gemm_efficiency_pct', 45, -1),
  ('kernels_without_launch*', 46, 0);


-- ======================================================================
-- was 019-export-anchors.sql — the places of a run worth opening in a trace
-- viewer, by name, for `profan export-trace RUN --around ANCHOR` and the
-- export hints of the HTML report (one definition for both).
--
-- export_anchor: one row per anchor: the rank and the window [start_ns,
-- end_ns) to export, the report rule whose finding it illustrates (NULL:
-- none), and a readable label.
--   slowest-step          the longest step of any rank (ties: lowest rank)
--   slowest-step-rank-R   the longest step of rank R (stragglers)
--   gap-K                 the K-th largest GPU idle gap of the run (K <= 10),
--                         with half its length plus 0.1 ms on each side

CREATE VIEW export_anchor AS
WITH ranked AS (
  SELECT run_id, rank, step, ts, dur,
    row_number() OVER (PARTITION BY run_id ORDER BY dur DESC, rank, step)
      AS n_run,
    row_number() OVER (PARTITION BY run_id, rank ORDER BY dur DESC, step)
      AS n_rank
  FROM step
),
gaps AS (
  SELECT run_id, rank, device, ts, dur, step,
    row_number() OVER (PARTITION BY run_id ORDER BY dur DESC, rank, ts) AS k
  FROM gpu_gap
)
SELECT run_id, 'slowest-step' AS anchor, 'step-variation' AS rule, rank,
  step, ts AS start_ns, ts + dur AS end_ns,
  printf('slowest step %d on rank %d (%.3f ms)', step, rank, dur / 1e6)
    AS label
FROM ranked WHERE n_run = 1
UNION ALL
SELECT run_id, 'slowest-step-rank-' || rank, 'straggler', rank, step, ts,
  ts + dur,
  printf('slowest step %d of rank %d (%.3f ms)', step, rank, dur / 1e6)
FROM ranked WHERE n_rank = 1
UNION ALL
SELECT run_id, 'gap-' || k, 'gpu-utilization', rank, step,
  ts - dur / 2 - 100000, ts + dur + dur / 2 + 100000,
  printf('GPU idle gap of %.3f ms on rank %d, GPU %d', dur / 1e6, rank,
         device)
FROM gaps WHERE k <= 10;


-- ======================================================================
-- was 021-gate-ok.sql — the second error level of `profan check`'s "ok".
--
-- The gate calls a step metric ok when the confidence interval of the
-- shift (at level alpha each end) stays below the threshold AND either
-- the shift estimate is nearer no change than the threshold (below half
-- of it) or the upper end of a wider interval, at alpha_ok, stays below
-- the threshold too.  The second arm lets a precisely measured small
-- slowdown (many steps) pass; alpha_ok bounds how often a slowdown of
-- the threshold passes through it.  See README "The regression gate".

INSERT INTO gate_param(name, value, doc) VALUES
  ('alpha_ok', 0.001, 'error probability of the upper end of the wider interval that lets a shift of half the threshold or more pass as ok (used when smaller than alpha)');


-- ======================================================================
-- was 022-op-model-stored.sql — the operator model's per-call GPU time and
-- its headline numbers, stored per run at ingest (src/analysis/derive_op.c) so
-- that `operators`, `diff-ops`, `op-roofline`, and `trend`/`check`/
-- `diff-metrics` through run_metric read a few rows instead of sweeping
-- every kernel of every run (the views of 016 recomputed kernel unions:
-- about 45 ms a run, 9.5 s for `trend` over 200 runs).
--
-- One definition of an operator call's GPU time, used by every query:
-- the union of the intervals of the kernels, memsets and memcpys it
-- launched directly (kernel.op_id / gpu_mem_op.op_id: the innermost op
-- enclosing the launch; a GEMM's cuBLAS workspace memsets are its own).
-- Overlapping records (programmatic dependent launch, several streams)
-- count once; sum_ns keeps the plain sum for comparison.

-- Kernels that run fp32 math on TF32 tensor cores say so in their name
-- (cuBLAS/cuDNN/CUTLASS: ampere_tf32_..., sm80_xmma_..._tf32f32_...,
-- cutlass_..._tf32gemm_..., xf32 on sm90), or by CUTLASS's instruction
-- shape: cutlass_80_tensorop_s1688gemm_... is an fp32 GEMM on the 16x8x8
-- TF32 MMA (on the A100 fixture it reaches 111 TFLOP/s, 5.7x the fp32
-- peak).  GLOB on the lower-case name.  A float GEMM whose call launched
-- one is held to the tf32 peak, other float calls to the fp32 peak.
CREATE TABLE op_tf32_kernel(pattern TEXT PRIMARY KEY);

INSERT INTO op_tf32_kernel(pattern) VALUES
  ('*tf32*'),
  ('*xf32*'),
  ('*tensorop_s1688*');

-- The runs the *_calc views compute (the derive pass puts the run it
-- ingests here and empties it after).
-- SQLite does not push a run_id filter from outside down through an
-- aggregate over a window, so the views read the list at their scans,
-- where the run_id indexes serve it.
CREATE TABLE op_target(run_id INTEGER PRIMARY KEY);

-- Stored: one row per operator call that launched GPU work.
CREATE TABLE op_gpu_time(
  op_id INTEGER PRIMARY KEY,       -- cpu_op.id
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  name_id INTEGER NOT NULL,        -- cpu_op.name_id
  device INTEGER,                  -- lowest GPU ordinal of its records
  n_gpu INTEGER NOT NULL,          -- kernels, memsets and memcpys launched
  union_ns INTEGER NOT NULL,       -- |union of their intervals|
  sum_ns INTEGER NOT NULL,         -- sum of their durations
  host_copies INTEGER NOT NULL,    -- memcpys to or from the host among them
  tf32 INTEGER NOT NULL,           -- 1: a kernel of op_tf32_kernel among them
  sig_id INTEGER,                  -- op_sig.id (was 028-op-gpu-time-sig.sql)
  whole_us INTEGER NOT NULL DEFAULT 0 -- GPU intervals recorded in whole µs
                                   -- (was 064-hierarchical-roofline.sql)
);
CREATE INDEX op_gpu_time_run
  ON op_gpu_time(run_id, rank, name_id, union_ns, n_gpu);

-- op_call_time (016) now reads the stored rows; same columns.
CREATE VIEW op_call_time AS
SELECT op_id, run_id, rank, device, n_gpu, union_ns, sum_ns, host_copies,
  tf32
FROM op_gpu_time;

CREATE TABLE op_run_metric(
  run_id INTEGER NOT NULL,
  metric TEXT NOT NULL,
  value REAL
);
CREATE INDEX op_run_metric_run ON op_run_metric(run_id, metric);

CREATE VIEW op_metric AS
SELECT run_id, metric, value FROM op_run_metric;

-- ------------------------------------------------------------------
-- More op kinds with FLOP and byte formulas, from "Input Dims", "Input
-- type" and "Concrete Inputs".  A call whose inputs the formula needs
-- are not recorded (no Concrete Inputs, a transposed convolution, an
-- unknown causal flag) is not modeled: unknown, never guessed.
INSERT INTO op_kind_rule(pattern, priority, kind) VALUES
  ('vllm::unified_attention*', 27, 'attention_paged'),
  ('*paged_attention*', 27, 'attention_paged'),
  ('*moe_sum*', 43, 'moe_combine'),
  ('*moe_permute*', 43, 'moe_dispatch'),
  ('*moe_align*', 43, 'moe_dispatch'),
  ('*moe_unpermute*', 42, 'moe_combine'),
  ('*rotary_embedding*', 41, 'rope'),
  ('*reshape_and_cache*', 25, 'kv_cache');

-- Convolutions: where each operator keeps its arguments.  Forward:
-- input [N,C,*S], weight [K,C/g,*R] at 0 and 1; backward
-- (convolution_backward): grad_output [N,K,*P], input, weight at 0, 1, 2
-- and output_mask (grad_input, grad_weight, grad_bias).
CREATE TABLE op_conv(
  name TEXT PRIMARY KEY,
  dir TEXT NOT NULL,               -- 'fwd' or 'bwd'
  bias_arg INTEGER,                -- fwd: the bias tensor (NULL: none)
  stride_arg INTEGER NOT NULL,
  pad_arg INTEGER NOT NULL,
  dil_arg INTEGER NOT NULL,
  transposed_arg INTEGER,          -- NULL: the op is never transposed
  mask_arg INTEGER                 -- bwd: output_mask
);

INSERT INTO op_conv(name, dir, bias_arg, stride_arg, pad_arg, dil_arg, transposed_arg, mask_arg) VALUES
  ('aten::convolution', 'fwd', 2, 3, 4, 5, 6, NULL),
  ('aten::_convolution', 'fwd', 2, 3, 4, 5, 6, NULL),
  ('aten::conv1d', 'fwd', 2, 3, 4, 5, NULL, NULL),
  ('aten::conv2d', 'fwd', 2, 3, 4, 5, NULL, NULL),
  ('aten::conv3d', 'fwd', 2, 3, 4, 5, NULL, NULL),
  ('aten::cudnn_convolution', 'fwd', NULL, 3, 2, 4, NULL, NULL),
  ('aten::miopen_convolution', 'fwd', 2, 4, 3, 5, NULL, NULL),
  ('aten::convolution_backward', 'bwd', NULL, 4, 5, 6, 7, 10);

-- Attention backward ([B,H,L,D] layout): grad_out, q, k, v, out at 0-4;
-- five matmuls (Q·Kᵀ recomputed, dV, dP, dQ, dK):
--   FLOPs = 2 B H L S (3D + 2Dv), halved when is_causal is True
--   (2.5x the forward when D = Dv); the causal flag must be recorded
--   bytes = q, k, v, out, grad_out read + dq, dk, dv written
CREATE TABLE op_attention_bwd(
  name TEXT PRIMARY KEY,
  causal_arg INTEGER NOT NULL
);

INSERT INTO op_attention_bwd(name, causal_arg) VALUES
  ('aten::_scaled_dot_product_flash_attention_backward', 11),
  ('aten::_scaled_dot_product_efficient_attention_backward', 11),
  ('aten::_scaled_dot_product_cudnn_attention_backward', 14);

-- Streaming kinds (016's op_stream) counted every tensor input as read;
-- ops that only write their first argument (fill_, zero_, copy_'s
-- destination) read it not at all: bytes = the other tensor inputs read
-- + the output written.  (On the A100 fixture fill_ of 45 M floats ran
-- at 2 x its HBM roofline with the old count, 93 % with this one.)
-- Memory-bound ops can still pass 100 % of the HBM roofline when their
-- data sits in L2 (40 MB on an A100): that is measured, not a model error.
CREATE TABLE op_write_first(name TEXT PRIMARY KEY);

INSERT INTO op_write_first(name) VALUES
  ('aten::fill_'),
  ('aten::zero_'),
  ('aten::copy_');

-- ------------------------------------------------------------------
-- gpu_spec, checked against the vendors' datasheets (016's rows were
-- written from memory).  Dense figures: the datasheets print the Tensor
-- Core rates with 2:4 sparsity (marked *), halved here.  Changes: B200
-- memory 8.0 -> 7.7 TB/s; V100 int8 removed (not a datasheet figure);
-- MI250/MI250X are per GCD (ROCm shows each of the module's two dies as
-- one device, so a trace's device has half the module's peaks and
-- bandwidth); ROCm devices named "AMD Radeon Graphics" are matched by
-- their compute-unit count (gpu_spec_cu); the
-- A100 80GB PCIe pattern now matches the driver's "NVIDIA A100 80GB PCIe".
-- Sources (rows cite theirs in `source`):
--   [V100]  NVIDIA Tesla V100 GPU Accelerator datasheet: SXM2 15.7 FP32,
--           125 tensor, PCIe 14 / 112, HBM2 900 GB/s (both).
--   [A100]  NVIDIA A100 Tensor Core GPU datasheet (nvidia-a100-datasheet-
--           us-nvidia-1758950-r4-web.pdf): 19.5 FP32, TF32 156 (312*),
--           BF16/FP16 312 (624*), INT8 624 (1248*); 40GB 1,555 GB/s,
--           80GB SXM 2,039 GB/s, 80GB PCIe 1,935 GB/s.
--   [H100]  NVIDIA H100 Tensor Core GPU datasheet: SXM 67 FP32, TF32
--           989*, BF16/FP16 1,979*, FP8/INT8 3,958*, 3.35 TB/s; PCIe
--           51, 756*, 1,513*, 3,026*, 2 TB/s; NVL 60, 835*, 1,671*,
--           3,341*, 3.9 TB/s.
--   [H200]  NVIDIA H200 Tensor Core GPU datasheet: compute as H100 SXM,
--           141 GB HBM3e at 4.8 TB/s.
--   [B200]  NVIDIA Blackwell datasheet, HGX B200 column, per GPU: FP32
--           75, TF32 2.2 PF*, BF16/FP16 4.5 PF*, FP8 9 PF*, INT8 9 POPS*,
--           180 GB HBM3E at 7.7 TB/s.
--   [MI250] AMD Instinct MI250 / MI250X product pages, per module: peak
--           FP32 matrix 90.5 / 95.7, FP16/BF16 and INT8 362.1 / 383,
--           HBM2e 3.2768 TB/s; no FP8, no TF32.
--   [MI300] AMD Instinct MI300X data sheet: FP32 matrix 163.4, TF32
--           653.7, FP16/BF16 1,307.4, FP8/INT8 2,614.9 (dense), HBM3
--           5.3 TB/s.
--   [2080]  NVIDIA Turing GPU Architecture whitepaper, appendix table,
--           GeForce RTX 2080 Ti reference: 13.4 FP32, FP16 tensor with
--           FP32 accumulate 53.8, INT8 215.2 TOPS, 616 GB/s.
-- Checked 2026-11-25 (profan issue 21) with secondary copies of the
-- same tables: glennklockwood.com/garden/processors/{A100,H100,B200},
-- archive-lib.hpctech.co.jp/gpuproduct/nvidia-h100.html (NVIDIA's H100
-- table, sparsity marked), zdszero.github.io (NVIDIA's GB200 NVL72 /
-- HGX B200 table), yobitel.com/knowledge-base/amd-mi250 (MI250/X).
-- The fixtures' "NVIDIA H100" reports 95 GiB, which no 80 GB H100 SXM
-- has (a 96 GB part: GH200 or H100 96GB, up to 4 TB/s): a bare name is
-- still taken as the SXM 80GB part; add a row with num_sms or a longer
-- pattern for your site.
-- Devices whose name says nothing (ROCm: "AMD Radeon Graphics") are
-- matched by name and SM / CU count to a gpu_spec row (by its gpu);
-- these come before gpu_spec's own patterns.
CREATE TABLE gpu_spec_cu(
  pattern TEXT NOT NULL,           -- GLOB against device.name
  num_sms INTEGER NOT NULL,        -- device.num_sms (CUs on ROCm)
  gpu TEXT NOT NULL,               -- gpu_spec.gpu
  source TEXT NOT NULL
);

INSERT INTO gpu_spec_cu(pattern, num_sms, gpu, source) VALUES
  ('AMD Radeon Graphics', 110, 'MI250X (one GCD)', '[MI250] 110 CUs per MI250X GCD'),
  ('AMD Radeon Graphics', 104, 'MI250 (one GCD)', '[MI250] 104 CUs per MI250 GCD');

INSERT INTO gpu_spec(pattern, priority, gpu, fp32, tf32, bf16, fp16, fp8, int8, mem_tbps, source,
  l2_mb, l2_tbps, l2_source) VALUES
  ('*V100*PCIE*', 10, 'V100 PCIe', 14.0, NULL, NULL, 112.0, NULL, NULL, 0.9, '[V100] Tesla V100 datasheet',
   6, 2048 * (14.0e12 / (2 * 5120)) / 1e12, '[VoltaWP] 6,144 KB; [AmpereWP] 2,048 B/clk x 1.367 GHz'),
  ('*V100*', 20, 'V100 SXM2', 15.7, NULL, NULL, 125.0, NULL, NULL, 0.9, '[V100] Tesla V100 datasheet',
   6, 2048 * (15.7e12 / (2 * 5120)) / 1e12, '[VoltaWP] 6,144 KB; [AmpereWP] 2,048 B/clk x 1.533 GHz'),
  ('*A100*80GB*PCIe*', 10, 'A100 80GB PCIe', 19.5, 156.0, 312.0, 312.0, NULL, 624.0, 1.935, '[A100] A100 datasheet r4',
   40, 5120 * (19.5e12 / (2 * 6912)) / 1e12, '[AmpereWP] 40,960 KB; 5,120 B/clk x 1.41 GHz'),
  ('*A100*PCIE*80GB*', 10, 'A100 80GB PCIe', 19.5, 156.0, 312.0, 312.0, NULL, 624.0, 1.935, '[A100] A100 datasheet r4',
   40, 5120 * (19.5e12 / (2 * 6912)) / 1e12, '[AmpereWP] 40,960 KB; 5,120 B/clk x 1.41 GHz'),
  ('*A100*80GB*', 15, 'A100 80GB SXM', 19.5, 156.0, 312.0, 312.0, NULL, 624.0, 2.039, '[A100] A100 datasheet r4',
   40, 5120 * (19.5e12 / (2 * 6912)) / 1e12, '[AmpereWP] 40,960 KB; 5,120 B/clk x 1.41 GHz'),
  ('*A100*PCIE*', 16, 'A100 40GB PCIe', 19.5, 156.0, 312.0, 312.0, NULL, 624.0, 1.555, '[A100] A100 datasheet r4',
   40, 5120 * (19.5e12 / (2 * 6912)) / 1e12, '[AmpereWP] 40,960 KB; 5,120 B/clk x 1.41 GHz'),
  ('*A100*', 20, 'A100 40GB SXM', 19.5, 156.0, 312.0, 312.0, NULL, 624.0, 1.555, '[A100] A100 datasheet r4',
   40, 5120 * (19.5e12 / (2 * 6912)) / 1e12, '[AmpereWP] 40,960 KB; 5,120 B/clk x 1.41 GHz'),
  ('*H100*PCIe*', 10, 'H100 PCIe', 51.0, 378.0, 756.5, 756.5, 1513.0, 1513.0, 2.0, '[H100] H100 datasheet',
   50, 5120 * (51e12 / (2 * 114 * 128)) / 1e12, '[HopperWP] 50 MB; 5,120 B/clk (as A100) x 1.748 GHz'),
  ('*H100*NVL*', 10, 'H100 NVL', 60.0, 417.5, 835.5, 835.5, 1670.5, 1670.5, 3.9, '[H100] H100 datasheet',
   50, 5120 * (60e12 / (2 * 132 * 128)) / 1e12, '[HopperWP] 50 MB; 5,120 B/clk (as A100) x 1.776 GHz'),
  ('*H100*', 20, 'H100 SXM', 67.0, 494.7, 989.4, 989.4, 1978.9, 1978.9, 3.35, '[H100] H100 datasheet',
   50, 5120 * (67e12 / (2 * 132 * 128)) / 1e12, '[HopperWP] 50 MB; 5,120 B/clk (as A100) x 1.983 GHz'),
  ('*H200*', 20, 'H200 SXM', 67.0, 494.7, 989.4, 989.4, 1978.9, 1978.9, 4.8, '[H200] H200 datasheet',
   50, 5120 * (67e12 / (2 * 132 * 128)) / 1e12, '[HopperWP] 50 MB; 5,120 B/clk (as A100) x 1.983 GHz'),
  ('*B200*', 20, 'B200 (HGX)', 75.0, 1100.0, 2250.0, 2250.0, 4500.0, 4500.0, 7.7, '[B200] Blackwell datasheet, HGX B200',
   126, 2 * 5120 * (75e12 / (2 * 148 * 128)) / 1e12, '[B200] 126 MB; 2 dies x 5,120 B/clk x 1.979 GHz'),
  ('*MI250X*', 10, 'MI250X (one GCD)', 47.85, NULL, 191.5, 191.5, NULL, 191.5, 1.6384, '[MI250] AMD Instinct MI250X, per module / 2',
   8, 32 * 128 * 1.7e9 / 1e12, '[CDNA2] 8 MB per GCD; 32 channels x 128 B/clk x 1.7 GHz'),
  ('*MI250*', 20, 'MI250 (one GCD)', 45.25, NULL, 181.05, 181.05, NULL, 181.05, 1.6384, '[MI250] AMD Instinct MI250, per module / 2',
   8, 32 * 128 * 1.7e9 / 1e12, '[CDNA2] 8 MB per GCD; 32 channels x 128 B/clk x 1.7 GHz'),
  ('*MI300X*', 20, 'MI300X', 163.4, 653.7, 1307.4, 1307.4, 2614.9, 2614.9, 5.3, '[MI300] AMD Instinct MI300X data sheet',
   256, 8 * 16 * 128 * 2.1e9 / 1e12, '[CDNA3] 256 MB Infinity Cache; L2 8 XCDs x 16 channels'
     || ' x 128 B/clk x 2.1 GHz'),
  ('*2080 Ti*', 20, 'GeForce RTX 2080 Ti', 13.4, NULL, NULL, 53.8, NULL, 215.2, 0.616, '[2080] Turing whitepaper',
   NULL, NULL, '[Turing] 5.5 MB; no public L2 bandwidth: HBM roof only');

-- (view device_spec: final form in "was 064-hierarchical-roofline.sql")

INSERT INTO metric_direction(pattern, priority, direction) VALUES
  ('attention_efficiency_pct', 47, -1);


-- ======================================================================
-- was 024-bulk-indexes.sql — the indexes an ingest builds after its bulk load.
--
-- The big tables are loaded without secondary indexes (keeping an index
-- up while inserting costs the writer more than one sort at the end:
-- bench/README.md), so these indexes are not created here but listed:
-- derive_trace.c (grp 'trace', after the trace rows of a run) and
-- derive_memory.c (grp 'memory', after the snapshot rows) run each ddl in
-- seq order; with PROFAN_TIMING set they print what each one cost.  A
-- database that already has them keeps them (IF NOT EXISTS), so the next
-- ingest into it updates them as it inserts.
--
-- Columns: grp (which derive step builds it), seq (order), name (the
-- index), ddl (its CREATE INDEX statement, run as is), reader (what reads
-- it; an index nobody reads should not be here).

CREATE TABLE bulk_index(
  grp    TEXT NOT NULL CHECK (grp IN ('trace', 'memory')),
  seq    INTEGER NOT NULL,
  name   TEXT NOT NULL PRIMARY KEY,
  ddl    TEXT NOT NULL,
  reader TEXT NOT NULL
) WITHOUT ROWID;

-- run_id alone on the biggest tables: the sweeps take their intervals from
-- trace_spans.c (or have SQLite sort them when that store gave up); a
-- one-column key sorts faster than (run_id, rank), and time-ordered indexes
-- took 0.37 s of a 2 s ingest at 10x where these take 0.15 s.
INSERT INTO bulk_index(grp, seq, name, ddl, reader) VALUES
  ('trace', 5, 'annotation_run', 'CREATE INDEX IF NOT EXISTS annotation_run ON annotation(run_id, rank, ts)', 'steps, derive comm (nccl:* annotations by time)'),
  ('memory', 5, 'block_run', 'CREATE INDEX IF NOT EXISTS block_run ON block(run_id)', 'run-level memory views'),
  ('memory', 4, 'block_snapshot', 'CREATE INDEX IF NOT EXISTS block_snapshot ON block(snapshot_id, segment_id, idx)', 'blocks of a segment, in order'),
  ('trace', 2, 'cpu_op_run', 'CREATE INDEX IF NOT EXISTS cpu_op_run ON cpu_op(run_id)', 'operators, steps, the database sweeps, summaries (min/max rowid)'),
  ('trace', 9, 'device_run', 'CREATE INDEX IF NOT EXISTS device_run ON device(run_id)', 'roofline and op model (device peak numbers)'),
  ('trace', 4, 'gpu_mem_op_run', 'CREATE INDEX IF NOT EXISTS gpu_mem_op_run ON gpu_mem_op(run_id, rank, ts, dur, kind)', 'memcpy, the HTA copy bandwidth (covering, in time order)'),
  ('trace', 6, 'gpu_sync_run', 'CREATE INDEX IF NOT EXISTS gpu_sync_run ON gpu_sync(run_id)', 'sync analyses'),
  ('trace', 1, 'kernel_run', 'CREATE INDEX IF NOT EXISTS kernel_run ON kernel(run_id)', 'every per-run kernel query, derive comm, summaries, run_metric'),
  ('memory', 6, 'memory_annotation_snapshot', 'CREATE INDEX IF NOT EXISTS memory_annotation_snapshot ON memory_annotation(snapshot_id, time_us)', 'memory-timeline annotations'),
  ('trace', 7, 'memory_event_run', 'CREATE INDEX IF NOT EXISTS memory_event_run ON memory_event(run_id, rank, ts)', 'memory-timeline of traces with profile_memory'),
  ('trace', 8, 'python_function_run', 'CREATE INDEX IF NOT EXISTS python_function_run ON python_function(run_id)', 'python stacks of a run'),
  ('trace', 3, 'runtime_call_run', 'CREATE INDEX IF NOT EXISTS runtime_call_run ON runtime_call(run_id)', 'launch-overhead, gpu links of the database pass'),
  ('memory', 3, 'segment_run', 'CREATE INDEX IF NOT EXISTS segment_run ON segment(run_id)', 'run-level memory views'),
  ('memory', 2, 'segment_snapshot', 'CREATE INDEX IF NOT EXISTS segment_snapshot ON segment(snapshot_id)', 'memory-segments, fragmentation'),
  ('memory', 1, 'snapshot_run', 'CREATE INDEX IF NOT EXISTS snapshot_run ON snapshot(run_id)', 'every memory query'),
  ('memory', 7, 'stack_frame_run', 'CREATE INDEX IF NOT EXISTS stack_frame_run ON stack_frame(run_id)', 'stack lookups of a run (derive memory, oom, fill-by-size)');


-- ======================================================================
-- was 026-core-metric-stored.sql — the core per-run metrics (steps, step
-- times, GPU use, categories, communication, memory) are computed once
-- per run at ingest and stored, so run_metric reads three tables.
--
-- run_metric_core (011) computed every run's metrics whenever anything
-- read run_metric: an outer filter on run_id or metric does not reach
-- into its window functions and GROUP BYs, so `profan trend METRIC`
-- over 1,000 runs took 2.7 s, `check` 8.9 s, and trend over 10,000 runs
-- 88 s (issue 19 asks for under 1 s over 100,000).  Here:
--   run_metric_core_calc  the definition of the core metrics (011's
--                         run_metric_core, unchanged) computed for the
--                         runs of core_target only
--   core_run_metric       its rows, stored per run by derive_core.c (in
--                         the ingest transaction and after profan merge)
--   run_metric_core       reads core_run_metric
--   run_metric            core_run_metric, hta_run_metric and
--                         op_run_metric, nothing computed

-- The runs run_metric_core_calc computes (derive_core.c puts one run
-- here and empties it again).
CREATE TABLE core_target(run_id INTEGER PRIMARY KEY);

-- `value` has no declared type on purpose: the view's values keep
-- their type (the step counts stay integers, REAL would print 8.0).
CREATE TABLE core_run_metric(
  run_id INTEGER NOT NULL,
  metric TEXT NOT NULL,
  value
);
CREATE INDEX core_run_metric_run ON core_run_metric(run_id, metric);
CREATE INDEX core_run_metric_metric ON core_run_metric(metric, run_id);

-- trend reads one metric over every run: the other stored arms get the
-- same (metric, run_id) index.
CREATE INDEX hta_run_metric_metric ON hta_run_metric(metric, run_id);
CREATE INDEX op_run_metric_metric ON op_run_metric(metric, run_id);

-- The core metrics of the runs of core_target (the definition of 011's
-- run_metric_core, each source restricted to those runs; steady steps
-- per rank counted by a join, not a correlated subquery, which read
-- every run's steady steps once per rank: 48 s over 10,000 runs):
-- step_time_* over the steady steps, `steps` the step count per rank
-- (the largest over the ranks, not a sum over ranks), `steady_steps`
-- the steady ones per rank, `step_gpu_busy_pct` (GPU busy share of the
-- steady steps' wall time), gpu_util_pct, gpu_ms and top_kernel_ms per
-- step, the kernel categories' shares, comm and exposed comm, memory.
-- The per-step divisors of gpu_ms, top_kernel_ms, exposed_comm_ms and
-- alloc_churn_bytes stay every (rank, step) row: their totals cover the
-- whole trace.
-- (view run_metric_core_calc: final form in "was 093-step-comm.sql")

-- step_steady (011) with the same columns, rules and values, written as
-- nested subqueries whose window functions all partition by (run_id,
-- rank) instead of CTEs read twice (s, d, t): SQLite materialised those
-- for every run of the database before applying a filter, so
-- `... FROM step_steady WHERE run_id = ?` (check's per-step samples, the
-- core metrics of one run at ingest) took 0.7 s over 10,000 runs.  Here
-- a filter on run_id (and rank) reaches the step table.  A filter that
-- holds a subquery is never pushed into window functions, so while
-- core_target holds runs (derive_core.c, for one statement) the view
-- reads only their steps; it is empty otherwise: every run.
-- (view step_steady: final form in "was 040-step-time-bound.sql")

-- run_step_sample (011) with the same rows, its aggregates written as
-- window functions over (run_id, step) and (run_id, rank, step) in
-- nested subqueries (SELECT DISTINCT), and no window function in an arm
-- of the UNION itself: SQLite pushes a filter on run_id neither through
-- a GROUP BY into a view with window functions nor into a compound
-- whose arms have window functions, so `check` (run_id = ? AND metric
-- = ?) computed every run's samples: 0.7 s a call over 10,000 runs.
-- (view run_step_sample: final form in "was 040-step-time-bound.sql")

CREATE VIEW run_metric_core AS
SELECT run_id, metric, value FROM core_run_metric;

-- run_metric (020, 022): every per-run metric, read from the three
-- stored tables (hta_metric and op_metric read the same tables).
CREATE VIEW run_metric AS
SELECT run_id, metric, value FROM core_run_metric
UNION ALL
SELECT run_id, metric, value FROM hta_run_metric
UNION ALL
SELECT run_id, metric, value FROM op_run_metric;


-- ======================================================================
-- was 027-op-model-signatures.sql — the operator model computed once per
-- operator signature, stored, and scoped to the run an ingest adds.
--
-- Before: op_model (025) was a UNION ALL of six arms over cpu_op, and
-- op_roofline_call joined it to op_call_time, so SQLite materialized the
-- union: neither a run_id filter from a query nor op_target reached the
-- arms' cpu_op scans.  Every ingest and every op-roofline / op-kinds /
-- HTML roofline parsed the JSON shapes of every call of EVERY run (A100
-- fixture: derive op 193 ms alone, 300 ms after four other runs; 68 s
-- for the report's roofline at 256 ranks).
--
-- FLOPs, bytes, dtype and kind depend only on the operator's name, its
-- "Input Dims", "Input type" and "Concrete Inputs" strings: its
-- signature.  A run repeats few of them (A100 fixture: 40,506 calls,
-- 1,867 signatures).  So:
--   op_sig        every signature of a call
--                 (string ids; 0 for a field not recorded), once per
--                 database; modeled = 0 until the arms have run on it
--   op_sig_scope  the signatures not yet modeled, in the columns of
--                 cpu_op the arms read (run_id and rank NULL)
--   the six arms  as in 016/022, reading op_sig_scope instead of cpu_op
--                 (restated below; formulas unchanged)
--   op_sig_model_calc  their union (025's op_model, per signature)
--   op_sig_model  its stored rows
--   op_model      per call again: cpu_op -> op_sig -> op_sig_model
-- derive_op.c fills op_sig from op_sig_calc (the signatures of the
-- op_target runs' GPU calls), op_sig_model from op_sig_model_calc, and
-- marks them modeled: the work is the new signatures of the run ingested,
-- whatever else the database holds.
-- Kinds: op_name_kind is op_kind's rule lookup for any name; op_kind (the
-- names of the stored runs) and the streaming arm read it, the arm for
-- its signatures' names only.
-- A change to op_kind_rule, op_kind_cost or the formulas after ingest:
-- `DELETE FROM op_sig_model; UPDATE op_sig SET modeled = 0;` then
-- `INSERT INTO op_sig_model SELECT * FROM op_sig_model_calc;
-- UPDATE op_sig SET modeled = 1;` recomputes every signature.

-- 022's memcpy_exposed_calc (016's memcpy_exposed over the op_target
-- runs) in one window pass instead of four: the running ends of all
-- records, of the kernels and of the copies side by side give the three
-- unions |kernels U copies|, |kernels| and |copies| per (run, rank,
-- device); the sum of max(0, end - max(start, running end before)) is a
-- union's length whatever the order of records starting together.
CREATE VIEW memcpy_exposed_calc AS
WITH ev AS (
  SELECT run_id, rank, device, 0 AS cp, ts, ts + dur AS te FROM kernel
  WHERE run_id IN (SELECT run_id FROM op_target)
  UNION ALL
  SELECT run_id, rank, device, 1, ts, ts + dur FROM gpu_mem_op
  WHERE run_id IN (SELECT run_id FROM op_target) AND kind = 'memcpy'
),
w AS (
  SELECT run_id, rank, device, cp, ts, te,
    max(te) OVER win AS prev_a,
    max(CASE WHEN cp = 0 THEN te END) OVER win AS prev_k,
    max(CASE WHEN cp = 1 THEN te END) OVER win AS prev_m
  FROM ev
  WINDOW win AS (PARTITION BY run_id, rank, device ORDER BY ts, te
                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
u AS (
  SELECT run_id, rank, device,
    sum(max(0, te - max(ts, coalesce(prev_a, ts)))) AS a_ns,
    sum(CASE WHEN cp = 0 THEN max(0, te - max(ts, coalesce(prev_k, ts)))
        END) AS k_ns,
    sum(CASE WHEN cp = 1 THEN max(0, te - max(ts, coalesce(prev_m, ts)))
        END) AS m_ns
  FROM w GROUP BY run_id, rank, device
)
SELECT run_id, rank, device, m_ns AS memcpy_ns,
  a_ns - coalesce(k_ns, 0) AS exposed_ns
FROM u WHERE m_ns IS NOT NULL;

-- The runs a *_calc view computes: those of op_target when it has rows
-- (an ingest), else every run (the sqlite3 shell, a query; a query's own
-- run_id = X still reaches the scans).
CREATE VIEW op_scope AS
SELECT run_id FROM op_target
UNION ALL
SELECT id FROM run WHERE NOT EXISTS (SELECT 1 FROM op_target);

-- 016's kernel_unlaunched, over the runs of op_scope (an outer run_id IN
-- filter did not reach its GROUP BY: every run's kernels were read).
CREATE VIEW kernel_unlaunched AS
SELECT run_id, rank, sum(runtime_id IS NULL) AS kernels,
  sum(CASE WHEN runtime_id IS NULL THEN dur ELSE 0 END) AS ns,
  count(*) AS all_kernels, sum(dur) AS all_ns
FROM kernel WHERE run_id IN (SELECT run_id FROM op_scope)
GROUP BY run_id, rank;

CREATE TABLE op_sig(
  id INTEGER PRIMARY KEY,
  name_id INTEGER NOT NULL,        -- cpu_op.name_id
  dims_id INTEGER NOT NULL,        -- cpu_op.input_dims_id, 0: none
  types_id INTEGER NOT NULL,       -- cpu_op.input_types_id, 0: none
  conc_id INTEGER NOT NULL,        -- cpu_op.concrete_inputs_id, 0: none
  modeled INTEGER NOT NULL DEFAULT 0,  -- 1: op_sig_model holds its rows
  UNIQUE(name_id, dims_id, types_id, conc_id)
);
CREATE INDEX op_sig_todo ON op_sig(id) WHERE modeled = 0;

-- The signatures of the op_target runs' calls.
CREATE VIEW op_sig_calc AS
SELECT DISTINCT o.name_id, coalesce(o.input_dims_id, 0) AS dims_id,
  coalesce(o.input_types_id, 0) AS types_id,
  coalesce(o.concrete_inputs_id, 0) AS conc_id
FROM cpu_op o WHERE o.run_id IN (SELECT run_id FROM op_target);

CREATE VIEW op_sig_scope AS
SELECT id, NULL AS run_id, NULL AS rank, name_id,
  nullif(dims_id, 0) AS input_dims_id, nullif(types_id, 0) AS input_types_id,
  nullif(conc_id, 0) AS concrete_inputs_id
FROM op_sig WHERE modeled = 0;

-- The kind of an operator name: the first op_kind_rule it matches.
CREATE VIEW op_name_kind AS
SELECT s.id AS name_id, s.text AS name, coalesce((
  SELECT r.kind FROM op_kind_rule r WHERE s.text GLOB r.pattern
  ORDER BY r.priority, r.rowid LIMIT 1), 'unknown') AS kind
FROM string s;

CREATE VIEW op_kind AS
SELECT name_id, name, kind FROM op_name_kind
WHERE name_id IN (SELECT DISTINCT name_id FROM cpu_op_summary);

CREATE TABLE op_sig_model(
  sig_id INTEGER NOT NULL,         -- op_sig.id
  matmul INTEGER NOT NULL,         -- 1: a GEMM or attention arm
  kind TEXT NOT NULL,
  dtype TEXT,
  flops REAL,
  bytes REAL,
  footprint REAL                   -- distinct bytes the call touches
                                   -- (was 064-hierarchical-roofline.sql)
);
CREATE INDEX op_sig_model_sig ON op_sig_model(sig_id);

-- Every modeled operator call (025's columns).
CREATE VIEW op_model AS
SELECT m.matmul, o.id AS op_id, o.run_id, o.rank, s.text AS name, m.kind,
  d.text AS dims, m.dtype, m.flops, m.bytes
FROM cpu_op o JOIN op_sig g ON g.name_id = o.name_id
  AND g.dims_id = coalesce(o.input_dims_id, 0)
  AND g.types_id = coalesce(o.input_types_id, 0)
  AND g.conc_id = coalesce(o.concrete_inputs_id, 0)
JOIN op_sig_model m ON m.sig_id = g.id
JOIN string s ON s.id = o.name_id
LEFT JOIN string d ON d.id = o.input_dims_id;


-- ======================================================================
-- was 028-op-gpu-time-sig.sql — each operator call's signature stored with
-- its GPU time, so that the roofline reads the calls that launched GPU
-- work, not every call; op_run_metric's arms as three views.
--
-- op_roofline_call (027) joined op_gpu_time to op_model, which reaches
-- op_sig through each call's cpu_op row (a lookup of the call, then of
-- the four string ids in op_sig's unique index): on the 10x A100 bench
-- trace the roofline arm of op_metric_calc was 0.19 s of CPU of the
-- 1.0 s derive op.  Here op_gpu_time keeps the call's op_sig.id
-- (sig_id), op_call_time_calc computes it (so op_sig is filled before
-- op_gpu_time: derive_op.c), and op_roofline_call joins
-- op_gpu_time -> op_sig_model by it; columns as before.
--
-- op_metric_calc is now the union of op_metric_roof_calc (GEMM and
-- attention efficiency), op_metric_launch_calc (kernels without a
-- launch) and op_metric_memcpy_calc (exposed memcpy time), same
-- definitions, so that derive_op.c can evaluate some of them from the
-- rows it kept while loading (src/trace/op_store.c, src/analysis/derive_op.c: equal to
-- the views' rows, tests/e2e/test_op_store.py) and the others here.

-- 027's definition, with the call's signature.
-- (view op_call_time_calc: final form in "was 064-hierarchical-roofline.sql")

CREATE VIEW op_metric_launch_calc AS
SELECT run_id, 'kernels_without_launch' AS metric, sum(kernels) AS value
  FROM kernel_unlaunched WHERE run_id IN (SELECT run_id FROM op_target)
  GROUP BY run_id
UNION ALL
SELECT run_id, 'kernels_without_launch_ms', sum(ns) / 1e6
  FROM kernel_unlaunched WHERE run_id IN (SELECT run_id FROM op_target)
  GROUP BY run_id;

CREATE VIEW op_metric_memcpy_calc AS
SELECT run_id, 'exposed_memcpy_ms' AS metric, sum(exposed_ns) / 1e6 AS value
  FROM memcpy_exposed_calc GROUP BY run_id;

CREATE VIEW op_gemm AS
WITH c AS MATERIALIZED (
  SELECT o.id AS op_id, o.run_id, o.rank, s.text AS name, d.text AS dims,
    t.text AS types,
    CASE WHEN s.text IN ('aten::mm', 'aten::_scaled_mm', 'aten::bmm')
         THEN 0 ELSE 1 END AS ai       -- index of A in the inputs
  FROM op_sig_scope o JOIN string s ON s.id = o.name_id
  JOIN string d ON d.id = o.input_dims_id
  LEFT JOIN string t ON t.id = o.input_types_id
  WHERE s.text IN ('aten::mm', 'aten::_scaled_mm', 'aten::addmm', 'aten::bmm',
                   'aten::baddbmm', 'aten::addbmm')
    AND json_valid(d.text)
),
g AS MATERIALIZED (
  SELECT c.*, name IN ('aten::bmm', 'aten::baddbmm', 'aten::addbmm') AS bat,
    json_extract(dims, '$[' || ai || ']') AS a,
    json_extract(dims, '$[' || (ai + 1) || ']') AS b,
    CASE WHEN ai = 1 THEN json_extract(dims, '$[0]') END AS bias,
    json_extract(types, '$[' || ai || ']') AS atype
  FROM c
),
s AS MATERIALIZED (
  SELECT g.*,
    CASE WHEN bat THEN json_extract(a, '$[0]') ELSE 1 END AS bb,
    json_extract(a, '$[' || bat || ']') AS m,
    json_extract(a, '$[' || (bat + 1) || ']') AS k,
    json_extract(b, '$[' || bat || ']') AS k2,
    json_extract(b, '$[' || (bat + 1) || ']') AS n,
    json_array_length(a) = 2 + bat AND json_array_length(b) = 2 + bat
      AND (NOT bat OR json_extract(a, '$[0]') = json_extract(b, '$[0]'))
      AS fits,
    CASE WHEN bias IS NULL THEN 0
         ELSE coalesce(json_extract(bias, '$[0]'), 1)
           * coalesce(json_extract(bias, '$[1]'), 1)
           * coalesce(json_extract(bias, '$[2]'), 1) END AS bias_n
  FROM g
)
SELECT op_id, run_id, rank, name, dims, atype AS dtype,
  2.0 * bb * m * k * n
    + CASE name WHEN 'aten::addmm' THEN 1.0 * m * n
                WHEN 'aten::baddbmm' THEN 1.0 * bb * m * n
                WHEN 'aten::addbmm' THEN 1.0 * m * n ELSE 0 END AS flops,
  (1.0 * bb * (m * k + k * n + m * n) + coalesce(bias_n, 0))
    * coalesce((SELECT size FROM op_dtype WHERE type = atype), 4) AS bytes
FROM s WHERE fits AND k = k2 AND m > 0 AND k > 0 AND n > 0;

CREATE VIEW op_sdpa AS
WITH c AS MATERIALIZED (
  SELECT o.id AS op_id, o.run_id, o.rank, s.text AS name, d.text AS dims,
    json_extract(t.text, '$[0]') AS dtype,
    json_extract(ci.text, '$[' || a.causal_arg || ']') AS causal,
    json_extract(d.text, '$[0]') AS q, json_extract(d.text, '$[1]') AS k,
    json_extract(d.text, '$[2]') AS v
  FROM op_sig_scope o JOIN string s ON s.id = o.name_id
  JOIN op_attention a ON a.name = s.text
  JOIN string d ON d.id = o.input_dims_id
  LEFT JOIN string t ON t.id = o.input_types_id
  JOIN string ci ON ci.id = o.concrete_inputs_id
  WHERE json_valid(d.text) AND json_valid(ci.text)
),
x AS MATERIALIZED (
  SELECT c.*,
    json_extract(q, '$[0]') AS b, json_extract(q, '$[1]') AS h,
    json_extract(q, '$[2]') AS l, json_extract(q, '$[3]') AS dq,
    json_extract(k, '$[1]') AS hk, json_extract(k, '$[2]') AS sk,
    json_extract(v, '$[3]') AS dv
  FROM c
  WHERE json_array_length(q) = 4 AND json_array_length(k) = 4
    AND json_array_length(v) = 4 AND causal IN ('True', 'False')
    AND json_extract(k, '$[3]') = json_extract(q, '$[3]')
)
SELECT op_id, run_id, rank, name, 'attention_fwd' AS kind, dims, dtype,
  2.0 * b * h * l * sk * (dq + dv)
    * CASE causal WHEN 'True' THEN 0.5 ELSE 1 END AS flops,
  (1.0 * b * h * l * dq + 1.0 * b * hk * sk * (dq + dv) + 1.0 * b * h * l * dv)
    * coalesce((SELECT size FROM op_dtype WHERE type = dtype), 4) AS bytes
FROM x WHERE b > 0 AND h > 0 AND l > 0 AND sk > 0 AND dq > 0 AND dv > 0;

-- (view op_stream: final form in "was 064-hierarchical-roofline.sql")

CREATE VIEW op_conv_model AS
WITH c AS MATERIALIZED (
  SELECT o.id AS op_id, o.run_id, o.rank, s.text AS name, v.dir,
    d.text AS dims, json_extract(t.text, '$[0]') AS dtype,
    CASE v.dir WHEN 'fwd' THEN json_extract(d.text, '$[0]')
      ELSE json_extract(d.text, '$[1]') END AS x,
    CASE v.dir WHEN 'fwd' THEN json_extract(d.text, '$[1]')
      ELSE json_extract(d.text, '$[2]') END AS w,
    CASE v.dir WHEN 'bwd' THEN json_extract(d.text, '$[0]') END AS go,
    json_array_length(json_extract(d.text, '$[' || v.bias_arg || ']'))
      AS has_bias,
    json_extract(ci.text, '$[' || v.stride_arg || ']') AS st,
    json_extract(ci.text, '$[' || v.pad_arg || ']') AS pd,
    json_extract(ci.text, '$[' || v.dil_arg || ']') AS dl,
    CASE WHEN v.transposed_arg IS NULL THEN 'False'
      ELSE json_extract(ci.text, '$[' || v.transposed_arg || ']') END AS tr,
    replace(replace(json_extract(ci.text, '$[' || v.mask_arg || ']'),
                    'True', '1'), 'False', '0') AS mask
  FROM op_sig_scope o JOIN string s ON s.id = o.name_id
  JOIN op_conv v ON v.name = s.text
  JOIN string d ON d.id = o.input_dims_id
  LEFT JOIN string t ON t.id = o.input_types_id
  JOIN string ci ON ci.id = o.concrete_inputs_id
  WHERE json_valid(d.text) AND json_valid(ci.text)
),
p AS MATERIALIZED (
  SELECT c.*, json_array_length(x) - 2 AS nd,
    json_extract(x, '$[0]') AS n, json_extract(w, '$[0]') AS k,
    json_extract(w, '$[1]') AS cg,
    coalesce(json_extract(w, '$[2]'), 1) * coalesce(json_extract(w, '$[3]'), 1)
      * coalesce(json_extract(w, '$[4]'), 1) AS rr,
    coalesce(json_extract(x, '$[2]'), 1) * coalesce(json_extract(x, '$[3]'), 1)
      * coalesce(json_extract(x, '$[4]'), 1) AS ss
  FROM c
  WHERE tr = 'False' AND json_array_length(w) = json_array_length(x)
    AND json_array_length(x) BETWEEN 3 AND 5
    AND (dir = 'fwd' AND json_valid(st) AND json_valid(pd) AND json_valid(dl)
         OR dir = 'bwd' AND json_array_length(go) = json_array_length(x)
            AND json_valid(mask) AND json_array_length(mask) = 3)
),
o AS MATERIALIZED (
  SELECT p.*,
    CASE WHEN dir = 'bwd' THEN
      coalesce(json_extract(go, '$[2]'), 1)
        * coalesce(json_extract(go, '$[3]'), 1)
        * coalesce(json_extract(go, '$[4]'), 1)
    ELSE (
      SELECT CASE WHEN count(*) = nd AND min(v) > 0 THEN
        max(CASE WHEN i = 0 THEN v END)
          * coalesce(max(CASE WHEN i = 1 THEN v END), 1)
          * coalesce(max(CASE WHEN i = 2 THEN v END), 1) END
      FROM (
        SELECT e.key AS i,
          (json_extract(x, '$[' || (2 + e.key) || ']')
           + 2 * coalesce(json_extract(pd, '$[' || e.key || ']'),
                          json_extract(pd, '$[0]'))
           - coalesce(json_extract(dl, '$[' || e.key || ']'),
                      json_extract(dl, '$[0]'))
             * (json_extract(w, '$[' || (2 + e.key) || ']') - 1) - 1)
          / coalesce(json_extract(st, '$[' || e.key || ']'),
                     json_extract(st, '$[0]'))
          + 1 AS v
        FROM json_each(json_array(0, 1, 2)) e WHERE e.key < nd))
    END AS pq
  FROM p
)
SELECT op_id, run_id, rank, name, 'conv_' || dir AS kind, dims, dtype,
  CASE dir WHEN 'fwd' THEN
    2.0 * n * k * pq * cg * rr
      + CASE WHEN has_bias > 0 THEN 1.0 * n * k * pq ELSE 0 END
  ELSE 2.0 * n * k * pq * cg * rr
         * (json_extract(mask, '$[0]') + json_extract(mask, '$[1]'))
       + json_extract(mask, '$[2]') * 1.0 * n * k * pq END AS flops,
  CASE dir WHEN 'fwd' THEN
    1.0 * n * (ss * (json_extract(x, '$[1]')) + k * pq) + 1.0 * k * cg * rr
      + CASE WHEN has_bias > 0 THEN k ELSE 0 END
  ELSE (1.0 * n * k * pq + 1.0 * n * json_extract(x, '$[1]') * ss
          * (1 + json_extract(mask, '$[0]'))
        + 1.0 * k * cg * rr * (1 + json_extract(mask, '$[1]'))
        + json_extract(mask, '$[2]') * k) END
    * coalesce((SELECT size FROM op_dtype WHERE type = dtype), 4) AS bytes
FROM o WHERE pq > 0 AND n > 0 AND k > 0 AND cg > 0 AND rr > 0;

CREATE VIEW op_sdpa_bwd AS
WITH c AS MATERIALIZED (
  SELECT o.id AS op_id, o.run_id, o.rank, s.text AS name, d.text AS dims,
    json_extract(t.text, '$[1]') AS dtype,
    json_extract(ci.text, '$[' || a.causal_arg || ']') AS causal,
    json_extract(d.text, '$[1]') AS q, json_extract(d.text, '$[2]') AS k,
    json_extract(d.text, '$[3]') AS v
  FROM op_sig_scope o JOIN string s ON s.id = o.name_id
  JOIN op_attention_bwd a ON a.name = s.text
  JOIN string d ON d.id = o.input_dims_id
  LEFT JOIN string t ON t.id = o.input_types_id
  JOIN string ci ON ci.id = o.concrete_inputs_id
  WHERE json_valid(d.text) AND json_valid(ci.text)
),
x AS MATERIALIZED (
  SELECT c.*,
    json_extract(q, '$[0]') AS b, json_extract(q, '$[1]') AS h,
    json_extract(q, '$[2]') AS l, json_extract(q, '$[3]') AS dq,
    json_extract(k, '$[1]') AS hk, json_extract(k, '$[2]') AS sk,
    json_extract(v, '$[3]') AS dv
  FROM c
  WHERE json_array_length(q) = 4 AND json_array_length(k) = 4
    AND json_array_length(v) = 4 AND causal IN ('True', 'False')
    AND json_extract(k, '$[3]') = json_extract(q, '$[3]')
)
SELECT op_id, run_id, rank, name, 'attention_bwd' AS kind, dims, dtype,
  2.0 * b * h * l * sk * (3 * dq + 2 * dv)
    * CASE causal WHEN 'True' THEN 0.5 ELSE 1 END AS flops,
  2.0 * (1.0 * b * h * l * dq + 1.0 * b * hk * sk * (dq + dv)
         + 1.0 * b * h * l * dv)
    * coalesce((SELECT size FROM op_dtype WHERE type = dtype), 4) AS bytes
FROM x WHERE b > 0 AND h > 0 AND l > 0 AND sk > 0 AND dq > 0 AND dv > 0;

CREATE VIEW op_gather_model AS
WITH c AS MATERIALIZED (
  SELECT o.id AS op_id, o.run_id, o.rank, s.text AS name, d.text AS dims,
    t.text AS types, ci.text AS conc,
    -- elements of inputs 1 and 2 (n2: 0 when input 2 is no tensor)
    coalesce(json_extract(d.text, '$[1][0]'), 1)
      * coalesce(json_extract(d.text, '$[1][1]'), 1)
      * coalesce(json_extract(d.text, '$[1][2]'), 1)
      * coalesce(json_extract(d.text, '$[1][3]'), 1) AS n1,
    CASE WHEN json_array_length(d.text, '$[2]') > 0 THEN
      coalesce(json_extract(d.text, '$[2][0]'), 1)
        * coalesce(json_extract(d.text, '$[2][1]'), 1)
        * coalesce(json_extract(d.text, '$[2][2]'), 1)
        * coalesce(json_extract(d.text, '$[2][3]'), 1) ELSE 0 END AS n2,
    -- element sizes of inputs 0, 1 and 4
    (SELECT size FROM op_dtype WHERE type = json_extract(t.text, '$[0]'))
      AS sz0,
    (SELECT size FROM op_dtype WHERE type = json_extract(t.text, '$[1]'))
      AS sz1,
    (SELECT size FROM op_dtype WHERE type = json_extract(t.text, '$[4]'))
      AS sz4
  FROM op_sig_scope o JOIN string s ON s.id = o.name_id
  JOIN string d ON d.id = o.input_dims_id
  JOIN string t ON t.id = o.input_types_id
  LEFT JOIN string ci ON ci.id = o.concrete_inputs_id
  WHERE s.text IN ('aten::embedding', '_C::rotary_embedding',
                   'vllm::rotary_embedding', '_moe_C::moe_sum')
    AND json_valid(d.text) AND json_valid(t.text)
)
SELECT op_id, run_id, rank, name,
  CASE name WHEN 'aten::embedding' THEN 'embedding'
    WHEN '_moe_C::moe_sum' THEN 'moe_combine' ELSE 'rope' END AS kind,
  dims,
  json_extract(types, CASE WHEN name IN ('aten::embedding',
    '_moe_C::moe_sum') THEN '$[0]' ELSE '$[1]' END) AS dtype,
  CASE name WHEN 'aten::embedding' THEN 0.0
    WHEN '_moe_C::moe_sum' THEN
      1.0 * json_extract(dims, '$[0][0]') * (json_extract(dims, '$[0][1]') - 1)
        * json_extract(dims, '$[0][2]')
    ELSE 3.0 * (n1 + n2) / json_extract(conc, '$[3]')
      * json_extract(dims, '$[4][1]') END AS flops,
  CASE name WHEN 'aten::embedding' THEN
      2.0 * n1 * json_extract(dims, '$[0][1]') * sz0 + 1.0 * n1 * sz1
    WHEN '_moe_C::moe_sum' THEN
      (1.0 * json_extract(dims, '$[0][0]') * json_extract(dims, '$[0][1]')
         * json_extract(dims, '$[0][2]') + n1) * sz0
    ELSE 2.0 * (n1 + n2) * sz1 + 8.0 * json_extract(dims, '$[0][0]')
      + 1.0 * json_extract(dims, '$[0][0]') * json_extract(dims, '$[4][1]')
        * sz4 END AS bytes
FROM c
WHERE CASE name
  WHEN 'aten::embedding' THEN json_array_length(dims, '$[0]') = 2
    AND json_array_length(dims, '$[1]') BETWEEN 1 AND 4
    AND sz0 > 0 AND sz1 > 0
  WHEN '_moe_C::moe_sum' THEN json_array_length(dims, '$[0]') = 3
    AND sz0 > 0
  ELSE json_valid(conc) AND CAST(json_extract(conc, '$[3]') AS INTEGER) > 0
    AND json_array_length(dims, '$[0]') = 1
    AND json_array_length(dims, '$[4]') = 2
    AND json_array_length(dims, '$[1]') BETWEEN 2 AND 3
    AND sz1 > 0 AND sz4 > 0 END;

-- The arms' union, per signature (op_id of an arm: op_sig.id).
-- (view op_sig_model_calc: final form in "was 064-hierarchical-roofline.sql")


-- ======================================================================
-- was 029-roofline-core.sql — the roofline of each operator call without its
-- names (op_roofline_core), and the run's GEMM and attention efficiency
-- computed from it in one pass over the run's calls.
--
-- op_metric_roof_calc (028) read op_roofline_call, which joins every call
-- to op_sig and two strings for its name and dims, found the run's calls
-- through the op_gpu_time_run index (a table lookup a call), kept the
-- GEMM and attention calls in a materialized table and grouped it three
-- times: 75 ms of the 1.5 s ingest of the 10x A100 bench trace (74,700
-- calls with GPU time, 17,760 of them GEMMs), the largest pass over
-- stored rows left in it (issue 15).  Here the formulas of 028's
-- op_roofline_call move unchanged into op_roofline_core (no names: the
-- signature id instead); op_roofline_call is op_roofline_core with the
-- names, same columns; op_metric_roof_calc reads op_roofline_core over
-- the rowid range of the target runs' operator calls (op_gpu_time.op_id
-- is a cpu_op.id: min and max come from the cpu_op_run index) and sums
-- each family once.

-- One row per operator call with GPU time, no host copies and a model:
-- its model, its GPU's peak for the call's dtype (tf32 when an fp32
-- call ran a TF32 kernel on a GPU that has it) and memory bandwidth.
-- (view op_roofline_core: final form in "was 064-hierarchical-roofline.sql")

-- 028's columns: the calls with their operator name and input dims.
-- (view op_roofline_call: final form in "was 064-hierarchical-roofline.sql")

-- (view op_metric_roof_calc: final form in "was 064-hierarchical-roofline.sql")

-- (view op_metric_calc: final form in "was 064-hierarchical-roofline.sql")


-- ======================================================================
-- was 030-annotation-sweep.sql — the nesting of CPU user annotations
-- (record_function) decided once per run at ingest by a sweep
-- (derive_hta_annot.c, hta_annot.c) and stored; 013's
-- hta_annotation_tree and hta_annotation_kernel read it, same columns.
--
-- 013 found, for every GPU op with a launch call, the innermost
-- annotation around the call with a correlated subquery that read every
-- earlier annotation of the rank (ORDER BY ts DESC, dur LIMIT 1), and
-- each annotation's parent the same way: on the 10x A100 bench trace
-- (94,500 launched ops, 2,880 annotations) annotation-kernels took 40 s.
-- The definitions are unchanged:
--   parent     the innermost other annotation of the same (rank, tid)
--              containing it: q.ts <= c.ts AND q.ts + q.dur >= c.ts +
--              c.dur, ORDER BY q.ts DESC, q.dur, q.id DESC, an equal
--              range with a lower id counting as the outer one (013);
--   innermost  of a launched op: the annotation of the launch call's
--              (rank, tid) with a.ts <= call.ts AND a.ts + a.dur >=
--              call.ts, ORDER BY a.ts DESC, a.dur, then a.id DESC (013
--              left ties on (ts, dur) to SQLite's scan, which gave the
--              highest id: the same rule, now stated).
-- ProfilerStep#N ranges are steps, not annotations: left out of both.
-- Ingests fill these in the derive phase (derive_hta_run: ingest and
-- profan merge, replacing a run's rows).

-- Every user annotation of the run (not ProfilerStep#N) and its parent.
CREATE TABLE hta_annotation_parent(
  annotation_id INTEGER PRIMARY KEY,   -- annotation.id
  run_id INTEGER NOT NULL,
  parent_id INTEGER                    -- annotation.id; NULL: outermost
);
CREATE INDEX hta_annotation_parent_run ON hta_annotation_parent(run_id);

-- The innermost annotation of launched GPU ops, as ranges of row ids:
-- the launched ops of table tab with first_id <= id <= last_id have
-- annotation annotation_id (ops without a launch call in the range are
-- not launched ops: no annotation).  Launched ops in no range have
-- none.  One row per op was 94,500 rows at 10x, longer to write than
-- the sweep; consecutive ops launched under one annotation share a row.
CREATE TABLE hta_launch_annotation(
  run_id INTEGER NOT NULL,
  tab TEXT NOT NULL,                   -- 'kernel' or 'gpu_mem_op'
  first_id INTEGER NOT NULL,           -- row ids of tab
  last_id INTEGER NOT NULL,
  annotation_id INTEGER NOT NULL,      -- annotation.id
  PRIMARY KEY(run_id, tab, first_id)
) WITHOUT ROWID;

-- 013's columns; parents from hta_annotation_parent.
CREATE VIEW hta_annotation_tree AS
WITH RECURSIVE
a AS MATERIALIZED (
  SELECT a.id, a.run_id, a.rank, a.tid, a.ts, a.dur, s.text AS name
  FROM annotation a JOIN string s ON s.id = a.name_id
  WHERE a.kind = 'user' AND s.text NOT LIKE 'ProfilerStep#%'
),
p AS MATERIALIZED (
  SELECT annotation_id AS id, parent_id FROM hta_annotation_parent
),
t(id, parent_id, depth, path) AS (
  SELECT a.id, NULL, 0, a.name FROM a JOIN p ON p.id = a.id
  WHERE p.parent_id IS NULL
  UNION ALL
  SELECT a.id, t.id, t.depth + 1, t.path || ' / ' || a.name
  FROM t JOIN p ON p.parent_id = t.id JOIN a ON a.id = p.id
)
SELECT a.run_id, a.rank, a.tid, a.id, t.parent_id, t.depth, a.name, t.path,
  a.ts, a.dur
FROM t JOIN a ON a.id = t.id;

-- 013's columns and rows (GPU ops whose launch call is recorded);
-- annotation_id from the range holding the op, NULL when none.
CREATE VIEW hta_annotation_kernel AS
SELECT g.run_id, g.rank, g.device, g.stream, g.kind, g.row_id, g.name_id,
  g.ts, g.dur, g.step, g.class,
  (SELECT CASE WHEN x.last_id >= g.row_id THEN x.annotation_id END
   FROM hta_launch_annotation x
   WHERE x.run_id = g.run_id
     AND x.tab = CASE g.kind WHEN 'kernel' THEN 'kernel'
                 ELSE 'gpu_mem_op' END
     AND x.first_id <= g.row_id
   ORDER BY x.first_id DESC LIMIT 1) AS annotation_id
FROM hta_gpu_op g JOIN runtime_call r ON r.id = g.runtime_id;


-- ======================================================================
-- The table catalogue: what each table is, read by the commands that
-- handle a run's rows as a whole instead of a list of names of their own:
--   profan merge          copies the tables of roles run, raw and
--                         derived_rank from each shard and computes the
--                         derived_run ones again over the merged run;
--   merge --summaries-only  copies the tables marked summary;
--   profan rm             deletes a run's rows from every table of roles
--                         run, history, raw, derived_rank, derived_run
--                         and scratch, then the strings and operator
--                         signatures no row names any more;
--   profan rebuild        computes the derived_rank and derived_run
--                         tables again from the raw rows;
--   the input kinds       (src/ingest/input_kinds.c): the tables a kind's
--                         loader fills are the raw ones of its input_kind.
-- Every table has a row: tests/e2e/test_table_role.py fails on a table
-- without one, and merge, rm and rebuild refuse a database whose table
-- with a run_id column has none.  Roles:
--   run           a run's identity: the run, its files and tags
--   history       what a history says about a run (named baselines):
--                 kept by --summaries-only, not copied from a shard
--   raw           rows of an input kind as its loader wrote them
--                 (input_kind: the run_file.kind of those files); the
--                 links and step numbers the loaders put in them are
--                 part of them
--   derived_rank  computed from one rank's rows: a shard's rows are what
--                 an ingest of every file computes, so merge copies them
--   derived_run   computed over all ranks of a run (collectives matched
--                 across ranks, critical paths, run metrics)
--   parameter     rules, thresholds and settings the analyses read:
--                 rows of the schema, edited with SQL, for every run
--   catalogue     shared lookup data: interned strings, operator
--                 signatures and their model, the bulk-index list, the
--                 input sources, this table
--   scratch       work tables of a derive pass, empty between commands
CREATE TABLE table_role(
  name TEXT PRIMARY KEY,           -- the table
  role TEXT NOT NULL CHECK(role IN ('run', 'history', 'raw', 'derived_rank',
                                    'derived_run', 'parameter', 'catalogue',
                                    'scratch')),
  input_kind TEXT,                 -- raw: run_file.kind of the files that fill it
  summary INTEGER NOT NULL DEFAULT 0 -- 1: kept by merge --summaries-only
    CHECK(summary IN (0, 1)),
  description TEXT NOT NULL,
  CHECK((role = 'raw') = (input_kind IS NOT NULL))
) WITHOUT ROWID;

-- The columns that hold a string.id in the tables of a run's rows: the
-- strings `profan rm` keeps and merge maps to the target's strings.  By
-- name: *name_id and the three input columns of cpu_op.
CREATE VIEW table_string_column AS
SELECT r.name AS tbl, c.name AS col
FROM table_role r, pragma_table_info(r.name) c
WHERE r.role IN ('run', 'history', 'raw', 'derived_rank', 'derived_run')
  AND (c.name GLOB '*name_id'
       OR c.name IN ('input_dims_id', 'input_types_id', 'concrete_inputs_id'));

INSERT INTO table_role(name, role, input_kind, summary, description) VALUES
  ('run', 'run', NULL, 1, 'one row per run'),
  ('run_tag', 'run', NULL, 1, 'tags of a run (git sha, config, ...)'),
  ('run_file', 'run', NULL, 1, 'the files of a run, their kind, rank and hash'),
  ('baseline', 'history', NULL, 1, 'named baselines: a name for a run'),

  ('kernel', 'raw', 'trace', 0, 'GPU kernels'),
  ('gpu_mem_op', 'raw', 'trace', 0, 'GPU memcpy and memset'),
  ('cpu_op', 'raw', 'trace', 0, 'CPU operators'),
  ('runtime_call', 'raw', 'trace', 0, 'CUDA runtime and driver calls'),
  ('gpu_sync', 'raw', 'trace', 0, 'GPU synchronization events'),
  ('annotation', 'raw', 'trace', 0, 'user annotations and ProfilerStep ranges'),
  ('memory_event', 'raw', 'trace', 0, 'the profiler''s [memory] instants'),
  ('python_function', 'raw', 'trace', 0, 'Python function events'),
  ('device', 'raw', 'trace', 1, 'the GPUs a trace lists (deviceProperties)'),
  ('coll_args', 'raw', 'trace', 0, 'collective arguments of trace events'),
  ('snapshot', 'raw', 'snapshot', 1, 'one row per memory snapshot'),
  ('segment', 'raw', 'snapshot', 0, 'allocator segments of a snapshot'),
  ('block', 'raw', 'snapshot', 0, 'allocator blocks of a snapshot'),
  ('alloc_event', 'raw', 'snapshot', 0, 'allocator events (device_traces), replayed'),
  ('memory_annotation', 'raw', 'snapshot', 0, 'annotations of a snapshot'),
  ('frame', 'raw', 'snapshot', 0, 'stack frames of a run''s snapshots'),
  ('stack', 'raw', 'snapshot', 0, 'deduplicated call stacks'),
  ('stack_frame', 'raw', 'snapshot', 0, 'the frames of each stack'),
  ('fr_dump', 'raw', 'flight_recorder', 0, 'one row per flight-recorder dump'),
  ('fr_group', 'raw', 'flight_recorder', 0, 'process groups of a dump'),
  ('fr_pg_status', 'raw', 'flight_recorder', 0, 'process-group status of a dump'),
  ('fr_entry', 'raw', 'flight_recorder', 0, 'flight-recorder entries'),
  ('nccl_comm', 'raw', 'nccl_log', 0, 'NCCL communicators'),
  ('nccl_link', 'raw', 'nccl_log', 0, 'NCCL channels and transports'),
  ('nccl_coll', 'raw', 'nccl_log', 0, 'NCCL collective records'),
  ('nccl_algo', 'raw', 'nccl_log', 0, 'NCCL algorithm and protocol choices'),
  ('nccl_warning', 'raw', 'nccl_log', 0, 'NCCL warnings'),

  ('step', 'derived_rank', NULL, 1, 'ProfilerStep durations per rank'),
  ('gpu_op_summary', 'derived_rank', NULL, 1, 'GPU activity totals per rank and name'),
  ('gpu_busy', 'derived_rank', NULL, 1, 'GPU busy time per device'),
  ('gpu_gap', 'derived_rank', NULL, 0, 'the largest GPU idle gaps'),
  ('step_time', 'derived_rank', NULL, 1, 'wall time per step by priority class'),
  ('comm_overlap', 'derived_rank', NULL, 1, 'communication overlapped by compute'),
  ('cpu_op_summary', 'derived_rank', NULL, 1, 'CPU operators per name and caller'),
  ('cpu_op_shape_summary', 'derived_rank', NULL, 0, 'CPU operator calls per input shape'),
  ('cpu_op_flops_summary', 'derived_rank', NULL, 0, 'operators with a FLOP count'),
  ('runtime_summary', 'derived_rank', NULL, 0, 'runtime calls per name and what they launched'),
  ('step_kernel_summary', 'derived_rank', NULL, 1, 'kernels and kernel time per step'),

  ('collective', 'derived_run', NULL, 0, 'collectives matched across ranks'),
  ('collective_window', 'derived_run', NULL, 0, 'the compute and idle time of each collective'),
  ('comm_fit', 'derived_run', NULL, 0, 'latency / bandwidth fits per collective'),
  ('hta_critical_path', 'derived_run', NULL, 0, 'the critical path per step, as runs on lanes'),
  ('hta_critical_path_op', 'derived_run', NULL, 0, 'critical-path time per op name'),
  ('hta_run_metric', 'derived_run', NULL, 1, 'the run''s HTA metrics'),
  ('hta_annotation_parent', 'derived_run', NULL, 0, 'the nesting of user annotations'),
  ('hta_launch_annotation', 'derived_run', NULL, 0, 'the innermost annotation of launched GPU ops'),
  ('op_gpu_time', 'derived_run', NULL, 0, 'GPU time of each operator call'),
  ('op_run_metric', 'derived_run', NULL, 1, 'the operator model''s run metrics'),
  ('core_run_metric', 'derived_run', NULL, 1, 'the core run metrics'),

  ('category_scheme', 'parameter', NULL, 0, 'kernel category schemes'),
  ('category_rule', 'parameter', NULL, 0, 'kernel category rules'),
  ('category_comm', 'parameter', NULL, 0, 'the communication category of a scheme'),
  ('comm_pattern', 'parameter', NULL, 0, 'which kernels are communication'),
  ('memory_frame_skip', 'parameter', NULL, 0, 'frames that are not user code'),
  ('memory_source_rule', 'parameter', NULL, 0, 'memory source categories'),
  ('metric_direction', 'parameter', NULL, 0, 'which way each metric gets worse'),
  ('steady_param', 'parameter', NULL, 0, 'the steady-step rule'),
  ('gate_param', 'parameter', NULL, 0, 'the regression gate'),
  ('advice_threshold', 'parameter', NULL, 0, 'thresholds of the findings'),
  ('hta_setting', 'parameter', NULL, 0, 'settings of the HTA analyses'),
  ('hta_runtime_role', 'parameter', NULL, 0, 'roles of runtime calls'),
  ('gpu_spec', 'parameter', NULL, 0, 'GPU peak rates and bandwidths'),
  ('gpu_spec_cu', 'parameter', NULL, 0, 'GPUs told apart by SM / CU count'),
  ('op_dtype', 'parameter', NULL, 0, 'element sizes and peaks of data types'),
  ('op_kind_rule', 'parameter', NULL, 0, 'operator kinds by name'),
  ('op_kind_cost', 'parameter', NULL, 0, 'FLOPs per element of streaming kinds'),
  ('op_attention', 'parameter', NULL, 0, 'attention operators'),
  ('op_attention_bwd', 'parameter', NULL, 0, 'attention backward operators'),
  ('op_conv', 'parameter', NULL, 0, 'convolution operators'),
  ('op_tf32_kernel', 'parameter', NULL, 0, 'kernels that run on TF32 tensor cores'),
  ('op_write_first', 'parameter', NULL, 0, 'operators that write their first input'),

  ('string', 'catalogue', NULL, 0, 'interned names'),
  ('op_sig', 'catalogue', NULL, 0, 'operator signatures (name, shapes, types)'),
  ('op_sig_model', 'catalogue', NULL, 0, 'the operator model per signature'),
  ('bulk_index', 'catalogue', NULL, 0, 'indexes an ingest builds after its load'),
  ('input_source', 'catalogue', NULL, 0, 'where each raw column comes from'),
  ('table_role', 'catalogue', NULL, 0, 'this catalogue'),

  ('op_target', 'scratch', NULL, 0, 'the runs the operator model computes'),
  ('core_target', 'scratch', NULL, 0, 'the runs the core metrics compute');


-- ======================================================================
-- was 031-runtime-call-corr.sql — no index runtime_call_corr.  The index
-- runtime_call(file_id, correlation) was the one persistent index made
-- from C: derive_trace.c created it for its database linkage of GPU rows
-- to runtime calls (PROFAN_DB_LINK=1 and the in-stream linker's
-- fallbacks).  That second linkage is gone: GPU rows are linked by the
-- in-stream linker only (src/trace/link_trace.c), fed the stored rows by
-- src/trace/trace_relink.c when a file must be linked again, which looks
-- calls up in its own map, not through an index; no query finds calls by
-- correlation id (they join on kernel.runtime_id).  So neither the code
-- nor the schema creates it: it cost every insert into runtime_call.


-- ======================================================================
-- was 040-step-time-bound.sql — the step time that bounds the work, and one
-- steady-step rule without the spread-widened tolerance (issue 30).
--
-- A ProfilerStep range is the CPU's step.  When the CPU runs ahead (the
-- GPU works through a queue of launches), the GPU work a step launched
-- ends after the next step began, and the CPU step no longer measures
-- the work: tracelens-mi300-resnet-ckpt's 16 ms CPU steps launch 19 ms of
-- GPU work each, and a 20 % slower GPU changed the CPU steps by 0 %.
-- Per rank, over the steps in time order (c the CPU step's start, e its
-- end, g0 / g1 the first start and the last end of the GPU activity --
-- kernels, memcpys, memsets -- the step launched: rows linked to a launch
-- call; a row without one, e.g. launched before the profiled window, only
-- has the step containing its start):
--   end    E_k = the largest max(e_j, g1_j) of the steps j <= k: the step
--          is over when its CPU part and the GPU work it launched are
--          (and never before an earlier step's);
--   start  S_k = max(c_k, E_k-1): a step starts when the CPU starts it
--          and the previous step's work is done; the first step starts
--          at g0 when its GPU work began only after its CPU part ended
--          (the GPU was still busy with launches from before the
--          profiled window), else at c;
--   step.bound_ts = S_k, step.bound_dur = E_k - S_k, step.bound_by =
--          'cpu' when that is the CPU step (S = c and E = e), 'gpu' when
--          the GPU work moved either end.
-- A CPU that waits for the GPU every step (a loss.item(), a
-- synchronize) keeps its CPU steps (bound_by 'cpu' on hta-diff-control);
-- a GPU tail reaching into the next step makes the step end with it
-- (kineto-resnet50-2021: a few ms); a CPU a step or more ahead gets the
-- GPU's steps (tracelens-mi300: 18.98, 18.98, 18.55 ms).
-- derive_step_bound.c computes these columns of step (above) at ingest
-- (the writer's derive pass); tests/oracle/step_bound.sql is the same
-- definition in SQL, with 092's launch step (below).

-- The steady-step rule, one definition (view step_steady; every step
-- statistic, the steps query, the step-variation rule, the report, the
-- HTML and the gate read it).  Per run and rank, over the rank's steps in
-- time order, with M the median of the rank's step times (bound_dur):
--   warm-up: the leading steps before the first step within
--            tolerance_pct of M, at most (n - 1) / 2 of the n steps;
--   cut:     the last step when it is outside tolerance_pct of M;
--   ranks with fewer than min_steps steps keep every step.
-- The tolerance no longer widens with the rank's spread (mad_k, 011):
-- the spread of all steps moved with any later step, so one step 10 %
-- slower made a warm-up step at 75 % of the median steady (issue 30).
-- Only leading steps are ever warm-up, and a change of the later steps
-- moves M by at most the distance between two middle steps.
-- (steady_param, above, holds tolerance_pct and min_steps.)
CREATE VIEW step_steady AS
SELECT run_id, rank, step, ts, dur, source,
  k AS pos,                        -- 1 = the rank's first step in time
  n,                               -- steps of the rank
  median AS median_ns,             -- the rank's median step (all steps)
  dev_pct,                         -- |dur - median| / median, %
  tol_pct,                         -- the tolerance, %
  reason = '' AS steady,           -- 1 steady, 0 warm-up or cut
  reason,                          -- '', 'warm-up' or 'cut'
  cpu_ts, cpu_dur,                 -- the ProfilerStep range (step.ts, dur)
  bound_by                         -- 'cpu' or 'gpu' (step.bound_by)
FROM (
  SELECT *,
    CASE WHEN few THEN ''
         WHEN k < coalesce(k0, 1) AND k <= (n - 1) / 2 THEN 'warm-up'
         WHEN k = n AND dev_pct > tol_pct THEN 'cut'
         ELSE '' END AS reason
  FROM (
    SELECT *,
      min(CASE WHEN dev_pct <= tol_pct THEN k END)
        OVER (PARTITION BY run_id, rank) AS k0
    FROM (
      SELECT *,
        100.0 * abs(dur - median) / max(median, 1) AS dev_pct,
        (SELECT value FROM steady_param WHERE name = 'tolerance_pct')
          AS tol_pct,
        n < (SELECT value FROM steady_param WHERE name = 'min_steps') AS few
      FROM (
        SELECT *,
          avg(CASE WHEN i IN ((n + 1) / 2, (n + 2) / 2) THEN dur END)
            OVER (PARTITION BY run_id, rank) AS median
        FROM (
          SELECT run_id, rank, step,
            coalesce(bound_ts, ts) AS ts, coalesce(bound_dur, dur) AS dur,
            source, ts AS cpu_ts, dur AS cpu_dur,
            coalesce(bound_by, 'cpu') AS bound_by,
            row_number() OVER (PARTITION BY run_id, rank
                               ORDER BY ts, step) AS k,
            row_number() OVER (PARTITION BY run_id, rank
                               ORDER BY coalesce(bound_dur, dur), ts) AS i,
            count(*) OVER (PARTITION BY run_id, rank) AS n
          FROM step
          WHERE NOT EXISTS (SELECT 1 FROM core_target)
             OR run_id IN (SELECT run_id FROM core_target))))));

-- The per-step samples of the step metrics (026's run_step_sample) for
-- every step, with `steady`: 1 when the step is steady on some rank (the
-- value is then the mean over those ranks, else over every rank).  The
-- gate compares the steady steps of two runs, or, when the runs have the
-- same schedule, every step number that is steady in either run, paired:
-- a change of the run cannot turn a step it slowed into warm-up and so
-- out of the comparison; only a step that is warm-up or cut in both runs
-- stays out (README "The regression gate").
CREATE VIEW run_step_sample AS
WITH
names AS (
  SELECT 'step_time_median_ms' AS metric
  UNION ALL SELECT 'step_time_p90_ms'
  UNION ALL SELECT 'step_time_mean_ms'
)
SELECT st.run_id, names.metric, st.step, st.ms AS value, st.steady
FROM (
  SELECT DISTINCT run_id, step,
    coalesce(avg(CASE WHEN steady THEN dur END)
               OVER (PARTITION BY run_id, step),
             avg(dur) OVER (PARTITION BY run_id, step)) / 1e6 AS ms,
    max(steady) OVER (PARTITION BY run_id, step) AS steady
  FROM step_steady
) st CROSS JOIN names
UNION ALL
SELECT run_id, 'step_gpu_busy_pct', step, value, steady
FROM (
  SELECT DISTINCT run_id, step,
    coalesce(avg(CASE WHEN steady THEN pct END)
               OVER (PARTITION BY run_id, step),
             avg(pct) OVER (PARTITION BY run_id, step)) AS value,
    max(steady) OVER (PARTITION BY run_id, step) AS steady
  FROM (
    SELECT DISTINCT s.run_id, s.rank, s.step, s.steady,
      100.0 * sum(CASE WHEN t.class IN ('kernel', 'memcpy', 'memset',
                                        'comm')
                       THEN t.ns ELSE 0 END)
                OVER (PARTITION BY s.run_id, s.rank, s.step)
        / max(sum(t.ns) OVER (PARTITION BY s.run_id, s.rank, s.step), 1)
        AS pct
    FROM step_time t
    JOIN step_steady s ON s.run_id = t.run_id AND s.rank = t.rank
      AND s.step = t.step));


-- ======================================================================
-- was 041-gate-history.sql — the defaults the regression gate gained with
-- issue 30 (the work evidence, the history's lineage and configuration)
-- and the snapshot arm of the run fingerprint.  README "The regression
-- gate (`profan check`)"; history_window.c and gate_work.c read them.

-- Defaults of `profan check` added by issue 30 (README "The regression
-- gate"); the options override the first ones.
INSERT INTO gate_param VALUES
  ('history_lineage', 1, 'without --same-tag the history holds only the '
   || 'baseline''s lineage: runs whose name equals the baseline''s with '
   || 'every digit run ignored, or that share a tag (key and value) with '
   || 'it (0: any run with the fingerprint)'),
  ('fingerprint_step_ratio', 1.15, 'history: the steady median step time '
   || 'of a run within this factor of the baseline''s (a configuration '
   || 'change moves it more: num_workers 0 -> 4, 159 -> 126 ms)'),
  ('fingerprint_min_mix_pct', 60, 'history: the share of GPU time the '
   || 'two runs'' kernel mixes have in common (sum over kernel names of '
   || 'the smaller share), %'),
  ('fingerprint_peak_ratio', 1.25, 'history: the peak allocated memory of '
   || 'a run with snapshots within this factor of the baseline''s'),
  ('work_min_pairs', 20, 'fewest matched GPU activities (kernel name and '
   || 'launch shape, memcpy/memset name and bytes) per step for the work '
   || 'evidence of a step-time check');

-- The fingerprint of a run's workload (011) with a third kind: the top
-- user source files of its memory snapshots' stacks (stack.user_frame_id,
-- by number of stacks), so that another model's snapshot is not in a
-- snapshot run's history; `name` holds the file name (name_id is NULL).
CREATE VIEW run_fingerprint AS
WITH
n AS (SELECT value AS top FROM gate_param WHERE name = 'fingerprint_top'),
k AS (
  SELECT run_id, name_id,
    row_number() OVER (PARTITION BY run_id
                       ORDER BY sum(total_ns) DESC, name_id) AS i
  FROM gpu_op_summary WHERE kind = 'kernel' GROUP BY run_id, name_id
),
o AS (
  SELECT c.run_id, c.name_id,
    row_number() OVER (PARTITION BY c.run_id
                       ORDER BY sum(c.total_ns) DESC, c.name_id) AS i
  FROM cpu_op_summary c JOIN string s ON s.id = c.name_id
  WHERE s.text NOT GLOB 'ProfilerStep#*'
  GROUP BY c.run_id, c.name_id
),
f AS (
  SELECT s.run_id, fr.filename,
    row_number() OVER (PARTITION BY s.run_id
                       ORDER BY count(*) DESC, fr.filename) AS i
  FROM stack s JOIN frame fr ON fr.id = s.user_frame_id
  GROUP BY s.run_id, fr.filename
)
SELECT run_id, 'kernel' AS kind, name_id, NULL AS name FROM k, n
  WHERE i <= n.top
UNION ALL
SELECT run_id, 'op', name_id, NULL FROM o, n WHERE i <= n.top
UNION ALL
SELECT run_id, 'frame', NULL, filename FROM f, n WHERE i <= n.top;


-- ======================================================================
-- was 050-straggler-clock.sql — stragglers on skewed clocks (issue 31): each
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

-- The straggler measures of each collective of each rank, the columns
-- of collective_window (012, above) that this file added:
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
-- compute_ns counts all GPU work of the rank that ended in the window
-- (kernels that are not communication, memcpy, memset).

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
-- of collectives it was last at: one 0.1 ms late arrival was "1 of 1";
-- min_spread_us stays, above).
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


-- ======================================================================
-- was 051-memory-split.sql — "reserved but unused" apart from fragmentation
-- (issue 31): the inactive bytes of a snapshot were all called
-- fragmentation, but most of them are usually whole cached segments with
-- no live block (on cs336-fullstep-2025 5.6 of the 5.8 GiB inactive).
-- Those are the caching allocator keeping memory it may need again:
-- torch.cuda.empty_cache() returns them, a memory limit caps them;
-- expandable_segments does nothing for them.  Fragmentation proper is
-- the free space inside segments that hold live blocks: only a request
-- that fits a hole can use it, and expandable_segments is its remedy.
--   snapshot.unused_segments, unused_bytes   whole segments without a
--                                            live block (their total size)
--   snapshot.fragmented_bytes                inactive bytes of the other
--                                            segments
-- inactive_bytes = fragmented_bytes + the inactive bytes of the unused
-- segments (= unused_bytes when the blocks tile them).  Written by
-- load_snapshot.c (the columns are in snapshot's CREATE TABLE above).

-- Per-snapshot totals (006) with the split.
CREATE VIEW memory_summary AS
SELECT s.run_id, s.id AS snapshot_id, s.rank, s.device, s.n_segments,
  s.n_blocks, s.reserved_bytes, s.allocated_bytes, s.active_bytes,
  s.inactive_bytes,
  round(100.0 * s.fragmented_bytes / max(s.reserved_bytes, 1), 2)
    AS fragmentation_pct,
  round(100.0 * s.unused_bytes / max(s.reserved_bytes, 1), 2)
    AS reserved_unused_pct,
  round(100.0 * s.active_bytes / max(s.reserved_bytes, 1), 2)
    AS utilization_pct,
  s.peak_allocated_bytes, s.peak_event_idx
FROM snapshot s;

-- The thresholds: fragmentation's apply to the fragmented bytes and to
-- the segments that hold live blocks (their rows above); reserved-unused
-- gets its own.
INSERT INTO advice_threshold VALUES
  ('reserved-unused', 'unused_pct', 10, '%',
   'rule reserved-unused, query fragmentation (recommendation)',
   'bytes in cached segments without a live block over reserved bytes of a'
   || ' snapshot above which empty_cache / a memory limit is recommended');

-- The core metrics (026) take fragmentation_pct = fragmented / reserved
-- and reserved_unused_pct = unused / reserved (the two add up to the old
-- fragmentation_pct, inactive / reserved, when blocks tile segments):
-- view run_metric_core_calc, whose final form is in "was 093" below.


-- ======================================================================
-- was 052-findings.sql — what the findings of `profan report` share with the
-- queries (issue 31): the minimum evidence for advice, the categories a
-- dedicated rule owns (one finding per cause), the idle-time threshold
-- of gpu-utilization, and the flight-recorder verdicts as a view that
-- the fr-hang query and the flight-recorder rule both read.

-- Thresholds: advice needs evidence (a 0.15 ms toy trace gets none), and
-- gpu-utilization says "uninstrumented" rather than "CPU-side" when most
-- of the GPU's idle time has no CPU activity recorded either.
INSERT INTO advice_threshold VALUES
  ('evidence', 'min_gpu_ms', 1, 'ms',
   'rules top-category, memory-ops, copy-ops, fill-kernels, tiny-kernels,'
   || ' gpu-utilization, exposed-comm (view run_evidence), rule evidence',
   'GPU busy time a run needs before the rules that judge GPU time give'
   || ' advice; below it one info finding says why there is none'),
  ('gpu-utilization', 'uninstrumented_pct', 50, '%',
   'rule gpu-utilization',
   'share of the traced time without GPU work that has no CPU operator or'
   || ' runtime call either (step_time class idle), above which the idle'
   || ' time is reported as uninstrumented, not as a CPU-side bottleneck');

-- The GPU busy time of each run against the evidence threshold.
CREATE VIEW run_evidence AS
SELECT r.id AS run_id,
  coalesce((SELECT sum(b.busy_ns) FROM gpu_busy b WHERE b.run_id = r.id), 0)
    AS gpu_busy_ns,
  (SELECT value FROM advice_threshold
   WHERE advice = 'evidence' AND name = 'min_gpu_ms') * 1e6 AS min_gpu_ns,
  coalesce((SELECT sum(b.busy_ns) FROM gpu_busy b WHERE b.run_id = r.id), 0)
    >= (SELECT value FROM advice_threshold
        WHERE advice = 'evidence' AND name = 'min_gpu_ms') * 1e6 AS enough
FROM run r;

-- An empty fr-hang says the run has no flight-recorder dump: the query
-- reads the view now, not fr_entry.
INSERT INTO input_source(priority, tbl, what) VALUES
  (5, 'fr_issue', 'flight-recorder dump');

-- Categories whose time a dedicated rule judges: top-category leaves
-- them to it, so one piece of GPU time gives one finding (memcpy time
-- was copy-ops, memory-ops and top-category at once).
CREATE TABLE category_owner(
  scheme TEXT NOT NULL,
  category TEXT NOT NULL,
  rule TEXT NOT NULL,              -- the rule that reports this time
  PRIMARY KEY(scheme, category)
) WITHOUT ROWID;
INSERT INTO category_owner VALUES
  ('detailed', 'NCCL / communication', 'exposed-comm'),
  ('coarse', 'comm', 'exposed-comm'),
  ('detailed', 'Memory ops', 'memory-ops'),
  ('coarse', 'memory', 'memory-ops'),
  ('detailed', 'Optimizer', 'optimizer'),
  ('detailed', 'Dtype conversion', 'copy-ops');

-- Flight-recorder verdicts (the fr-hang query's definition, per run):
-- per process group and collective sequence id, the way PyTorch's
-- fr_trace analyser reports it: ranks that never enqueued it (the usual
-- hang culprit), mismatched op, sizes or dtypes, ranks stuck in it while
-- others completed it, or no rank completing it.  rn numbers a group's
-- disagreeing sequence ids (1: the first); a group without one has a
-- single 'ok' row (rn NULL) for its last sequence id.  Entries lost to
-- the ring buffer (older than a rank's first entry) are not counted as
-- missing.  Read by the fr-hang query and the flight-recorder rule.
CREATE VIEW fr_issue AS
WITH g AS (
  SELECT run_id, pg_name, max(pg_desc) AS pg_desc, max(ranks) AS ranks
  FROM fr_group GROUP BY run_id, pg_name
),
dumps AS (SELECT DISTINCT run_id, rank FROM fr_dump),
e AS (
  SELECT run_id, rank, pg_name, max(pg_desc) AS pg_desc,
    collective_seq_id AS seq, op, state, input_sizes, output_sizes,
    input_numel, output_numel, input_dtypes, output_dtypes,
    min(record_id) AS record_id
  FROM fr_entry
  WHERE coalesce(is_p2p, 0) = 0
    AND collective_seq_id IS NOT NULL AND pg_name IS NOT NULL
  GROUP BY run_id, rank, pg_name, collective_seq_id
),
mem AS (
  SELECT g.run_id, g.pg_name, CAST(j.value AS INTEGER) AS member
  FROM g, json_each(CASE WHEN json_valid(g.ranks) THEN g.ranks END) j
  UNION
  SELECT DISTINCT e.run_id, e.pg_name, e.rank FROM e
  WHERE NOT EXISTS (SELECT 1 FROM g WHERE g.run_id = e.run_id
                    AND g.pg_name = e.pg_name AND json_valid(g.ranks))
),
rng AS (
  SELECT run_id, rank, pg_name, min(seq) AS lo, max(seq) AS hi FROM e
  GROUP BY run_id, rank, pg_name
),
seqs AS (SELECT DISTINCT run_id, pg_name, seq FROM e),
cell AS (
  SELECT s.run_id, s.pg_name, s.seq, m.member AS rank, x.op, x.state,
    x.input_sizes, x.output_sizes, x.input_numel, x.output_numel,
    x.input_dtypes, x.output_dtypes,
    CASE WHEN x.rank IS NOT NULL THEN x.state
         WHEN NOT EXISTS (SELECT 1 FROM dumps d WHERE d.run_id = s.run_id
                          AND d.rank = m.member) THEN 'no_dump'
         WHEN r.rank IS NULL OR r.hi < s.seq THEN 'not_enqueued'
         ELSE 'dropped' END AS status
  FROM seqs s JOIN mem m ON m.run_id = s.run_id AND m.pg_name = s.pg_name
  LEFT JOIN e x ON x.run_id = s.run_id AND x.pg_name = s.pg_name
    AND x.seq = s.seq AND x.rank = m.member
  LEFT JOIN rng r ON r.run_id = s.run_id AND r.pg_name = s.pg_name
    AND r.rank = m.member
),
mode AS (
  SELECT run_id, pg_name, seq,
    (SELECT op FROM cell c2 WHERE c2.run_id = c.run_id
       AND c2.pg_name = c.pg_name AND c2.seq = c.seq
       AND op IS NOT NULL GROUP BY op ORDER BY count(*) DESC, op LIMIT 1)
      AS op,
    (SELECT input_sizes FROM cell c2 WHERE c2.run_id = c.run_id
       AND c2.pg_name = c.pg_name AND c2.seq = c.seq
       AND input_sizes IS NOT NULL
       GROUP BY input_sizes ORDER BY count(*) DESC, input_sizes LIMIT 1)
      AS in_sizes,
    (SELECT output_sizes FROM cell c2 WHERE c2.run_id = c.run_id
       AND c2.pg_name = c.pg_name AND c2.seq = c.seq
       AND output_sizes IS NOT NULL
       GROUP BY output_sizes ORDER BY count(*) DESC, output_sizes LIMIT 1)
      AS out_sizes,
    (SELECT input_dtypes FROM cell c2 WHERE c2.run_id = c.run_id
       AND c2.pg_name = c.pg_name AND c2.seq = c.seq
       AND input_dtypes IS NOT NULL
       GROUP BY input_dtypes ORDER BY count(*) DESC, input_dtypes LIMIT 1)
      AS dtypes,
    count(*) AS n_members
  FROM cell c GROUP BY run_id, pg_name, seq
),
flag AS (
  SELECT c.*, m.op AS mode_op, m.n_members,
    (c.op IS NOT NULL AND c.op <> m.op) AS odd_op,
    (c.op IS NOT NULL AND (
       (c.input_sizes <> m.in_sizes AND m.op NOT IN ('scatter', 'all_to_all',
          'all_to_allv', 'alltoall', 'alltoall_base'))
       OR (c.output_sizes <> m.out_sizes AND m.op NOT IN ('gather',
          'all_to_all', 'all_to_allv', 'alltoall', 'alltoall_base'))
       OR (m.op IN ('all_reduce', 'allreduce')
           AND c.input_numel <> c.output_numel)
       OR (m.op IN ('all_gather', '_all_gather_base', 'allgather',
                    'all_gather_into_tensor')
           AND c.output_numel <> c.input_numel * m.n_members)
       OR (m.op IN ('reduce_scatter', '_reduce_scatter_base',
                    'reduce_scatter_tensor')
           AND c.input_numel <> c.output_numel * m.n_members)))
      AS odd_size,
    (c.op IS NOT NULL AND (c.input_dtypes <> m.dtypes
       OR (c.output_dtypes IS NOT NULL AND c.input_dtypes <> c.output_dtypes)))
      AS odd_dtype
  FROM cell c JOIN mode m ON m.run_id = c.run_id AND m.pg_name = c.pg_name
    AND m.seq = c.seq
),
agg AS (
  SELECT run_id, pg_name, seq, max(mode_op) AS op,
    group_concat(rank, ',') AS members,
    sum(status = 'completed') AS n_completed,
    group_concat(CASE WHEN status = 'completed' THEN rank END, ',')
      AS completed,
    group_concat(CASE WHEN status = 'started' THEN rank END, ',') AS started,
    group_concat(CASE WHEN status = 'scheduled' THEN rank END, ',')
      AS scheduled,
    group_concat(CASE WHEN status = 'not_enqueued' THEN rank END, ',')
      AS missing,
    group_concat(CASE WHEN odd_op THEN rank END, ',') AS odd_op,
    group_concat(CASE WHEN odd_size THEN rank END, ',') AS odd_size,
    group_concat(CASE WHEN odd_dtype THEN rank END, ',') AS odd_dtype,
    group_concat(CASE WHEN odd_op THEN rank || ':' || op END, ' ')
      AS op_detail,
    group_concat(CASE WHEN odd_size THEN rank || ':' || input_sizes || '->'
                 || output_sizes END, ' ') AS size_detail,
    group_concat(CASE WHEN odd_dtype THEN rank || ':' || input_dtypes END,
                 ' ') AS dtype_detail,
    group_concat(rank || ':' || status, ' ') AS rank_states
  FROM (SELECT * FROM flag ORDER BY run_id, pg_name, seq, rank)
  GROUP BY run_id, pg_name, seq
),
verdict AS (
  SELECT *,
    CASE WHEN missing IS NOT NULL THEN 'missing_ranks'
         WHEN odd_op IS NOT NULL THEN 'op_mismatch'
         WHEN odd_size IS NOT NULL THEN 'size_mismatch'
         WHEN odd_dtype IS NOT NULL THEN 'dtype_mismatch'
         WHEN n_completed > 0 AND (started IS NOT NULL
                                   OR scheduled IS NOT NULL) THEN 'stuck'
         WHEN n_completed = 0 THEN 'not_completed'
    END AS issue
  FROM agg
),
ranked AS (
  SELECT *, row_number() OVER (PARTITION BY run_id, pg_name ORDER BY seq)
    AS rn
  FROM verdict WHERE issue IS NOT NULL
),
okrow AS (
  SELECT v.* FROM verdict v
  WHERE NOT EXISTS (SELECT 1 FROM ranked r WHERE r.run_id = v.run_id
                    AND r.pg_name = v.pg_name)
    AND v.seq = (SELECT max(seq) FROM verdict v2
                 WHERE v2.run_id = v.run_id AND v2.pg_name = v.pg_name)
)
SELECT r.run_id, r.pg_name, g.pg_desc, r.seq, r.op, r.issue,
  CASE r.issue WHEN 'missing_ranks' THEN r.missing
               WHEN 'op_mismatch' THEN r.odd_op
               WHEN 'size_mismatch' THEN r.odd_size
               WHEN 'dtype_mismatch' THEN r.odd_dtype
               WHEN 'stuck' THEN trim(coalesce(r.started, '') || ','
                                      || coalesce(r.scheduled, ''), ',')
               ELSE NULL END AS culprit_ranks,
  r.members, r.completed, r.started, r.scheduled,
  r.missing AS missing_ranks, r.rank_states,
  CASE r.issue WHEN 'op_mismatch' THEN r.op_detail
               WHEN 'size_mismatch' THEN r.size_detail
               WHEN 'dtype_mismatch' THEN r.dtype_detail END AS detail,
  r.rn
FROM ranked r LEFT JOIN g ON g.run_id = r.run_id AND g.pg_name = r.pg_name
UNION ALL
SELECT o.run_id, o.pg_name, g.pg_desc, o.seq, o.op, 'ok', NULL, o.members,
  o.completed, o.started, o.scheduled, o.missing, o.rank_states, NULL, NULL
FROM okrow o LEFT JOIN g ON g.run_id = o.run_id AND g.pg_name = o.pg_name;
INSERT INTO table_role(name, role, input_kind, summary, description) VALUES
  ('category_owner', 'parameter', NULL, 0,
   'the categories a dedicated rule reports (not top-category)');


-- ======================================================================
-- was 060-hta-queue.sql — the launch queue counts launch calls, not GPU ops
-- (issue 32): one cudaGraphLaunch of 1,100 kernels (or any call whose
-- correlation id several GPU ops share) is one entry of its stream's
-- queue, +1 when the call starts and -1 when its first op on that stream
-- starts; a call whose ops run on several streams is one entry on each.
-- For single-op launches (every launch HTA knows) nothing changes.
-- The length at which a launch blocks depends on the runtime: table
-- hta_queue_limit, by launch call name, replaced hta_setting 'queue_full'
-- for the views, the queries, the metric and the critical path
-- (derive_hta.c reads it too).

-- Launch queue limit per runtime, matched on the launch call's name with
-- GLOB (lowest priority first).  queue_full NULL: no limit known, so no
-- time counts as blocked.  CUDA blocks a stream's launches at 1024
-- pending; ROCm does not at that length: on the MI300X fixture
-- (tracelens-mi300-resnet-ckpt) launches with 1,024 to 1,840 queued take
-- 3.2 us (median), as with 0 to 255 queued (3.5 us).
CREATE TABLE hta_queue_limit(
  pattern TEXT PRIMARY KEY,
  priority INTEGER NOT NULL,
  queue_full INTEGER,
  note TEXT NOT NULL
);
INSERT INTO hta_queue_limit VALUES
  ('hip*', 10, NULL, 'ROCm: no blocking seen at 1,840 queued (MI300X)'),
  ('*', 20, 1024, 'CUDA: launches block at 1024 pending per stream');
INSERT INTO table_role(name, role, input_kind, summary, description) VALUES
  ('hta_queue_limit', 'parameter', NULL, 0,
   'launch queue limit per runtime call name');

-- View hta_queue_length: one row per change of a stream's queue;
-- queue_full is the limit of the launch call that made the change.
-- Ties: launches first.  (Its final form: "was 094" below.)


-- ======================================================================
-- was 061-memcpy-bandwidth-arg.sql — Kineto's own `memory bandwidth (GB/s)`
-- of each memcpy / memset (issue 32 point 8).  Kineto computes it from
-- the exact duration, while traces of some generations write `dur` in
-- whole µs (the control fixture: bytes / arg - dur lies in [0, 1) µs for
-- all 882 copies), so bytes / dur overstates short copies.  The per-op
-- bandwidth of view hta_memory_bw is the arg where the trace has it, else
-- bytes / dur; gbps_source says which, and 'dur_whole_us' when the
-- duration it divides by is a whole number of µs (truncated by the
-- profiler: the true bandwidth may be lower).
-- gpu_mem_op.gbps (above) holds the trace's arg, GB/s.
CREATE VIEW hta_memory_bw AS
SELECT run_id, rank, device, stream, id AS row_id, step, ts, dur, bytes,
  CASE kind WHEN 'memset' THEN 'Memset'
    ELSE 'Memcpy ' || coalesce(direction, 'unknown') END AS kind,
  CASE WHEN gbps > 0 THEN gbps
       WHEN dur > 0 AND bytes IS NOT NULL THEN bytes * 1.0 / dur END AS gbps,
  CASE WHEN gbps > 0 THEN 'arg'
       WHEN dur > 0 AND bytes IS NOT NULL THEN
         CASE WHEN dur % 1000 = 0 THEN 'dur_whole_us' ELSE 'dur' END
  END AS gbps_source
FROM gpu_mem_op;


-- ======================================================================
-- was 062-hta-counters.sql — the memory bandwidth in use over time, HTA's
-- memory bandwidth time series (get_memory_bw_time_series): per rank,
-- device and kind ('Memcpy HtoD', ..., 'Memset'), +GB/s of each copy or
-- set at its start and -GB/s at its end (hta_memory_bw's per-op figure),
-- summed; one row per change, the value holding until next_ts.  With the
-- launch queue (hta_queue_length) it is what `export-trace` writes as
-- counter tracks.  Ops without a bandwidth (no bytes) are left out.
CREATE VIEW hta_memory_bw_series AS
WITH ev AS (
  SELECT run_id, rank, device, kind, ts, gbps AS d, row_id, 0 AS e
  FROM hta_memory_bw WHERE gbps IS NOT NULL
  UNION ALL
  SELECT run_id, rank, device, kind, ts + dur, -gbps, row_id, 1
  FROM hta_memory_bw WHERE gbps IS NOT NULL
)
SELECT run_id, rank, device, kind, ts,
  max(0.0, round(sum(d) OVER w, 6)) AS gbps,
  lead(ts) OVER w AS next_ts
FROM ev
WINDOW w AS (PARTITION BY run_id, rank, device, kind
             ORDER BY ts, e DESC, row_id ROWS UNBOUNDED PRECEDING);


-- ======================================================================
-- was 063-op-bytes.sql — the roofline's bytes of streaming ops and gathers as
-- the kernels move them (issue 32 point 5: efficiencies above 100 %).
--
--   op_out_arg      arguments an op only writes (`out=` tensors): not
--                   counted as read.  Kineto lists them among the inputs:
--                   aten::mul [[512,2862],[],[512,2862]] is mul.out(self,
--                   other, out), one tensor read, one written, where the
--                   streaming arm had read both (3 tensors, 150 %).
--   op_stream       an elementwise op writes the broadcast shape of the
--                   tensors read (aten::add [[512,1],[1,2862]] writes
--                   512 x 2862), no longer the largest input; a scalar
--                   operand ([]) is one element; in-place ops (add_) read
--                   and write their first argument, as before.
--   op_index_select_model  aten::index_select(self, dim, index): the rows
--                   read and written, not the table: 2 x numel(index) x
--                   numel(self) / self[dim] elements + the indices
--                   (a [30522,512] table with 141 indices: 0.58 MB, where
--                   the copy arm counted 125 MB: 595 % on an H100).  Kind
--                   'gather', its own kind rule before aten::index* (copy).

CREATE TABLE op_out_arg(
  pattern TEXT NOT NULL,           -- GLOB over the op name
  arg INTEGER NOT NULL,            -- 0-based position in Input Dims
  PRIMARY KEY(pattern, arg)
);
INSERT INTO op_out_arg VALUES
  ('aten::mul*', 2), ('aten::div*', 2),   -- (self, other, out)
  ('aten::add*', 3), ('aten::sub*', 3);   -- (self, other, alpha, out)
INSERT INTO table_role(name, role, input_kind, summary, description) VALUES
  ('op_out_arg', 'parameter', NULL, 0,
   'out= arguments of operators: written, not read');
INSERT INTO op_kind_rule VALUES ('aten::index_select', 45, 'gather');
-- (op_stream and op_sig_model_calc as this file changed them: their
-- final forms are in "was 064" below.)
CREATE VIEW op_index_select_model AS
WITH c AS MATERIALIZED (
  SELECT o.id AS op_id, o.run_id, o.rank, s.text AS name, d.text AS dims,
    json_extract(t.text, '$[0]') AS dtype,
    coalesce(CAST(json_extract(ci.text, '$[1]') AS INTEGER), 0) AS dim,
    (SELECT size FROM op_dtype WHERE type = json_extract(t.text, '$[0]'))
      AS sz0,
    coalesce((SELECT size FROM op_dtype
              WHERE type = json_extract(t.text, '$[2]')), 8) AS szi
  FROM op_sig_scope o JOIN string s ON s.id = o.name_id
  JOIN string d ON d.id = o.input_dims_id
  JOIN string t ON t.id = o.input_types_id
  LEFT JOIN string ci ON ci.id = o.concrete_inputs_id
  WHERE s.text = 'aten::index_select' AND json_valid(d.text)
    AND json_valid(t.text) AND (ci.text IS NULL OR json_valid(ci.text))
),
n AS MATERIALIZED (
  SELECT c.*,
    (SELECT CASE WHEN count(*) = json_array_length(c.dims, '$[0]')
       AND min(e.type = 'integer') THEN
       coalesce(max(CASE e.key WHEN 0 THEN e.value END), 1)
       * coalesce(max(CASE e.key WHEN 1 THEN e.value END), 1)
       * coalesce(max(CASE e.key WHEN 2 THEN e.value END), 1)
       * coalesce(max(CASE e.key WHEN 3 THEN e.value END), 1)
       * coalesce(max(CASE e.key WHEN 4 THEN e.value END), 1) END
     FROM json_each(c.dims, '$[0]') e) AS n_self,
    json_extract(c.dims, '$[0][' || c.dim || ']') AS n_dim,
    coalesce(json_extract(c.dims, '$[2][0]'), 1) AS n_idx
  FROM c
  WHERE json_array_length(c.dims, '$[0]') BETWEEN 1 AND 5
    AND json_array_length(c.dims, '$[2]') <= 1 AND c.sz0 > 0
)
SELECT op_id, run_id, rank, name, 'gather' AS kind, dims, dtype,
  0.0 AS flops,
  2.0 * n_idx * n_self / n_dim * sz0 + 1.0 * n_idx * szi AS bytes
FROM n WHERE n_self > 0 AND n_dim > 0 AND n_idx >= 0;


-- ======================================================================
-- was 064-hierarchical-roofline.sql — the roofline of an operator call in two
-- memory tiers, L2 and HBM, the way the hierarchical roofline of the
-- NERSC / Berkeley work does it (each memory level its own bandwidth
-- ceiling), and durations recorded in whole µs taken at their precision
-- (issue 32 point 5: 19 op-roofline rows above 100 % of the HBM roof on
-- the A100 and V100 fixtures, up to 142 %).
--
-- Why: every byte a kernel reads or writes passes the L2, and part of
-- them may be served there without touching HBM (an optimizer's
-- momentum buffer or a gradient the op before just wrote): V100
-- `add_ [[256,256,3,3],...]` moves 3 x 2.36 MB in ~6 µs, 1.19 TB/s on a
-- 0.9 TB/s part.  The rule, per call (C = the GPU's L2 capacity):
--   footprint F = the distinct bytes the call touches (its tensors once:
--                 an in-place output is its input, op_sig_model.footprint)
--   L2 time     = bytes / L2 bandwidth          (every byte passes L2)
--   HBM time    = 0 when F <= C (all of it can sit in L2: tier l2),
--                 else (bytes - C) / HBM bandwidth (at most one L2's worth
--                 of its traffic is served without HBM)
--   roof        = max(FLOPs / peak, L2 time, HBM time); tier = the memory
--                 level of the larger of the two memory times ('l2' or
--                 'hbm'); bound = 'compute' when FLOPs / peak is the max.
--   A GPU without L2 figures keeps the HBM roof alone (bytes / HBM bw).
-- Whole µs: Kineto of 2021 (the resnet50, control and v100 fixtures)
-- records ts and dur in whole µs, truncated: a recorded duration can be
-- up to 1 µs short of the real one.  A trace file records whole µs when
-- every GPU row of it has a whole-µs duration (a ns trace has a 1 in
-- 1,000 chance a row, so a file of them never passes);
-- op_gpu_time.whole_us counts the call's GPU intervals when its file
-- does (0 otherwise), and the efficiency divides by gpu_ns + 1 µs per
-- such interval (slack_ns): the lowest efficiency the record allows,
-- never above 100 % by truncation alone.  The op-roofline rows say so in
-- dur_res.
-- One definition: op_roofline_core computes roof_ns, tier, bound and
-- slack_ns; op-roofline, op-kinds, the GEMM / attention efficiency
-- metrics and the HTML roofline read them.

-- ------------------------------------------------------------------
-- L2 per GPU.  l2_mb: capacity (MiB) of the last cache in front of
-- device memory; l2_tbps: the L2's peak bandwidth = bytes per clock x
-- boost clock.  Boost clock: the row's FP32 peak / (2 x FP32 cores), the
-- clock the datasheet's own FP32 figure is computed at.
-- Sources:
--   [VoltaWP]  NVIDIA Tesla V100 GPU Architecture whitepaper, Table 1:
--              L2 cache 6,144 KB; 5,120 FP32 cores.
--   [AmpereWP] NVIDIA A100 Tensor Core GPU Architecture whitepaper,
--              p. 35: "The A100 L2 read bandwidth is 5120 Bytes/clk,
--              compared to V100 L2 cache read bandwidth of 2048
--              Bytes/clk"; L2 40 MB (40,960 KB); 6,912 FP32 cores.
--   [HopperWP] NVIDIA H100 Tensor Core GPU Architecture whitepaper,
--              Table 3: L2 50 MB (SXM5 and PCIe); 128 FP32 cores per SM,
--              132 SMs (SXM5, NVL) and 114 (PCIe).  NVIDIA publishes no
--              L2 bytes/clock for Hopper: A100's 5,120 B/clk is used, as
--              the hardware table of PMC10448217 (Table 3: H100 8,986
--              GB/s at 1,755 MHz) does; microbenchmarks measure less
--              (Luo et al., "Benchmarking and Dissecting the Nvidia Hopper
--              GPU Architecture", arXiv 2402.13499, on an H800 PCIe), so
--              the figure is a ceiling, not a typical rate.
--   [H200]     H200: the H100 SXM5 die (50 MB L2, 132 SMs) with HBM3e.
--   [B200]     B200: L2 126 MB over its two dies (Chips and Cheese,
--              "Nvidia's B200: Keeping the CUDA Juggernaut Rolling"), 148
--              SMs; no published bytes/clock: twice Hopper's 5,120 B/clk
--              (two dies), a ceiling.
--   [CDNA2]    AMD CDNA 2 (MI250/MI250X): 8 MB L2 per GCD, 32 channels;
--              ROCm Compute Profiler's L2 peak is 128 B per channel per
--              clock x channels x peak engine clock (1.7 GHz).
--   [CDNA3]    AMD CDNA 3 (MI300X): 4 MB L2 per XCD (16 channels of 128
--              B/clk, 8 XCDs, 2.1 GHz: 34.4 TB/s, the level every access
--              passes) in front of the 256 MB Infinity Cache: capacity
--              is the Infinity Cache's, bandwidth the L2s'.
--   [Turing]   GeForce RTX 2080 Ti: 5.5 MB L2 (Turing whitepaper); no
--              public L2 bandwidth: no L2 tier.
-- (gpu_spec's l2_mb, l2_tbps and l2_source, with each row's figures and
-- sources, are in its CREATE TABLE and INSERT above.)
CREATE VIEW device_spec AS
SELECT d.run_id, d.rank, d.device, d.name, s.gpu, s.fp32, s.tf32, s.bf16,
  s.fp16, s.fp8, s.int8, s.mem_tbps, s.l2_mb, s.l2_tbps
FROM device d JOIN gpu_spec s ON s.rowid = coalesce((
  SELECT s3.rowid FROM gpu_spec_cu c JOIN gpu_spec s3 ON s3.gpu = c.gpu
  WHERE d.name GLOB c.pattern AND c.num_sms = d.num_sms
  ORDER BY s3.priority, s3.rowid LIMIT 1), (
  SELECT s2.rowid FROM gpu_spec s2 WHERE d.name GLOB s2.pattern
  ORDER BY s2.priority, s2.rowid LIMIT 1));

-- ------------------------------------------------------------------
-- The footprint of a signature: the distinct bytes its call touches.
-- Equal to bytes but for in-place streaming ops (a name ending in '_'
-- that is not write-only, op_write_first): `add_(self, other)` reads self
-- and other and writes self, 3 tensors of traffic, 2 of footprint
-- (op_sig_model.footprint, above).
CREATE VIEW op_stream AS
WITH kn AS MATERIALIZED (           -- each name's kind once, not per call
  SELECT k.name_id, k.name, k.kind, kc.flops_per_elem AS fpe,
    k.name IN (SELECT name FROM op_write_first) AS wf
  FROM op_name_kind k JOIN op_kind_cost kc ON kc.kind = k.kind
  WHERE k.name_id IN (SELECT name_id FROM op_sig_scope)
),
x AS MATERIALIZED (
  SELECT o.run_id, o.id AS op_id, o.rank, kn.name, kn.kind, kn.fpe, kn.wf,
    d.text AS dims, t.text AS types, e.key AS i, e.value AS shape,
    EXISTS (SELECT 1 FROM op_out_arg a WHERE kn.name GLOB a.pattern
            AND a.arg = e.key) AS out_arg,
    coalesce(json_extract(e.value, '$[0]'), 1)
      * coalesce(json_extract(e.value, '$[1]'), 1)
      * coalesce(json_extract(e.value, '$[2]'), 1)
      * coalesce(json_extract(e.value, '$[3]'), 1)
      * coalesce(json_extract(e.value, '$[4]'), 1)
      * coalesce(json_extract(e.value, '$[5]'), 1)
      * coalesce(json_extract(e.value, '$[6]'), 1)
      * coalesce(json_extract(e.value, '$[7]'), 1) AS n
  FROM op_sig_scope o JOIN kn ON kn.name_id = o.name_id
  JOIN string d ON d.id = o.input_dims_id
  JOIN string t ON t.id = o.input_types_id, json_each(d.text) e
  WHERE json_valid(d.text) AND json_valid(t.text) AND e.type = 'array'
    AND json_extract(t.text, '$[' || e.key || ']')
        IN (SELECT type FROM op_dtype)
),
-- the broadcast shape of the tensors read by an elementwise op (063)
bd AS MATERIALIZED (
  SELECT x.op_id, json_array_length(x.shape) - 1 - s.key AS r,
    max(s.value) AS v, min(s.type = 'integer') AS flat
  FROM x, json_each(x.shape) s
  WHERE NOT x.out_arg AND x.kind = 'elementwise'
  GROUP BY x.op_id, json_array_length(x.shape) - 1 - s.key
),
b AS MATERIALIZED (
  SELECT op_id, CASE WHEN min(flat) AND max(r) < 8 THEN
    coalesce(max(CASE r WHEN 0 THEN v END), 1)
      * coalesce(max(CASE r WHEN 1 THEN v END), 1)
      * coalesce(max(CASE r WHEN 2 THEN v END), 1)
      * coalesce(max(CASE r WHEN 3 THEN v END), 1)
      * coalesce(max(CASE r WHEN 4 THEN v END), 1)
      * coalesce(max(CASE r WHEN 5 THEN v END), 1)
      * coalesce(max(CASE r WHEN 6 THEN v END), 1)
      * coalesce(max(CASE r WHEN 7 THEN v END), 1) END AS n_out
  FROM bd GROUP BY op_id
),
y AS MATERIALIZED (
  SELECT run_id, op_id, min(rank) AS rank, min(name) AS name,
    min(kind) AS kind, min(dims) AS dims, min(types) AS types,
    min(fpe) AS fpe, max(wf) AS wf,
    sum(CASE WHEN out_arg THEN 0 ELSE n END) AS sum_n,
    max(CASE WHEN out_arg THEN 0 ELSE n END) AS max_n,
    max(CASE WHEN out_arg THEN n ELSE 0 END) AS out_n,
    min(i) AS i0, sum(CASE WHEN i = 0 THEN n ELSE 0 END) AS n0
  FROM x GROUP BY run_id, op_id
),
z AS (
  SELECT y.*, max(max_n, out_n, coalesce(b.n_out, 0)) AS n_w,
    (SELECT size FROM op_dtype
     WHERE type = json_extract(types, '$[' || i0 || ']')) AS sz,
    name GLOB '*_' AND NOT wf AS inplace
  FROM y LEFT JOIN b ON b.op_id = y.op_id
)
SELECT op_id, run_id, rank, name, kind, dims,
  json_extract(types, '$[' || i0 || ']') AS dtype,
  fpe * n_w AS flops,
  1.0 * (sum_n - CASE WHEN wf THEN n0 ELSE 0 END + n_w) * sz AS bytes,
  1.0 * (sum_n - CASE WHEN wf THEN n0 ELSE 0 END
         + CASE WHEN inplace THEN 0 ELSE n_w END) * sz AS footprint
FROM z;
CREATE VIEW op_sig_model_calc AS
SELECT g.op_id AS sig_id, 1 AS matmul, k.kind, g.dtype, g.flops, g.bytes,
  g.bytes AS footprint
FROM op_gemm g JOIN op_sig o ON o.id = g.op_id
JOIN op_name_kind k ON k.name_id = o.name_id
UNION ALL
SELECT op_id, 1, kind, dtype, flops, bytes, bytes FROM op_sdpa
UNION ALL
SELECT op_id, 0, kind, dtype, flops, bytes, footprint FROM op_stream
UNION ALL
SELECT op_id, 0, kind, dtype, flops, bytes, bytes FROM op_conv_model
UNION ALL
SELECT op_id, 1, kind, dtype, flops, bytes, bytes FROM op_sdpa_bwd
UNION ALL
SELECT op_id, 0, kind, dtype, flops, bytes, bytes FROM op_gather_model
UNION ALL
SELECT op_id, 0, kind, dtype, flops, bytes, bytes FROM op_index_select_model;

-- ------------------------------------------------------------------
-- Whole-µs intervals per call (op_gpu_time.whole_us, above): written by
-- the writer (op_store.c) and by op_call_time_calc, its definition.
CREATE VIEW op_call_time_calc AS
WITH fw AS MATERIALIZED (        -- the files that record whole µs
  SELECT file_id FROM (
    SELECT file_id, dur FROM kernel
    WHERE run_id IN (SELECT run_id FROM op_target)
    UNION ALL
    SELECT file_id, dur FROM gpu_mem_op
    WHERE run_id IN (SELECT run_id FROM op_target))
  GROUP BY file_id HAVING min(dur % 1000 = 0) = 1
),
tn AS MATERIALIZED (
  SELECT s.id AS name_id, EXISTS (SELECT 1 FROM op_tf32_kernel p
                                  WHERE lower(s.text) GLOB p.pattern) AS tf32
  FROM string s WHERE s.id IN (
    SELECT name_id FROM kernel WHERE run_id IN (SELECT run_id FROM op_target)
      AND op_id IS NOT NULL)
),
ev AS (
  SELECT k.run_id, k.op_id, k.device, k.ts, k.ts + k.dur AS te, 0 AS host,
    (SELECT tf32 FROM tn WHERE tn.name_id = k.name_id) AS tf32
  FROM kernel k WHERE k.run_id IN (SELECT run_id FROM op_target)
    AND k.op_id IS NOT NULL
  UNION ALL
  SELECT run_id, op_id, device, ts, ts + dur,
    kind = 'memcpy' AND coalesce(direction, '') <> 'DtoD', 0
  FROM gpu_mem_op WHERE run_id IN (SELECT run_id FROM op_target)
    AND op_id IS NOT NULL
),
w AS (
  SELECT run_id, op_id, device, ts, te, host, tf32,
    max(te) OVER (PARTITION BY run_id, op_id ORDER BY ts, te
                  ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev
  FROM ev
)
SELECT op_id, run_id,
  (SELECT rank FROM cpu_op WHERE id = op_id) AS rank,
  (SELECT name_id FROM cpu_op WHERE id = op_id) AS name_id,
  min(device) AS device, count(*) AS n_gpu,
  sum(max(0, te - max(ts, coalesce(prev, ts)))) AS union_ns,
  sum(te - ts) AS sum_ns, sum(host) AS host_copies, max(tf32) AS tf32,
  (SELECT g.id FROM cpu_op o JOIN op_sig g ON g.name_id = o.name_id
     AND g.dims_id = coalesce(o.input_dims_id, 0)
     AND g.types_id = coalesce(o.input_types_id, 0)
     AND g.conc_id = coalesce(o.concrete_inputs_id, 0)
   WHERE o.id = op_id) AS sig_id,
  CASE WHEN (SELECT file_id FROM cpu_op WHERE id = op_id)
            IN (SELECT file_id FROM fw) THEN count(*) ELSE 0 END AS whole_us
FROM w GROUP BY run_id, op_id;

-- ------------------------------------------------------------------
-- The roofline of each call: 029's columns, then the tiers.
CREATE VIEW op_roofline_core AS
WITH dsm AS MATERIALIZED (       -- GLOB once a GPU, of the runs in scope
  SELECT * FROM device_spec WHERE run_id IN (SELECT run_id FROM op_scope)),
c AS (
  SELECT m.matmul, t.op_id, t.run_id, t.rank, t.device, t.sig_id,
    m.kind, m.dtype, m.flops, m.bytes, m.footprint, t.union_ns AS gpu_ns,
    t.sum_ns, t.n_gpu, t.whole_us,
    ds.gpu, CASE WHEN dt.peak = 'fp32' AND t.tf32 AND ds.tf32 > 0
                 THEN 'tf32' ELSE dt.peak END AS peak,
    ds.fp32, ds.tf32, ds.bf16, ds.fp16, ds.fp8, ds.int8, ds.mem_tbps,
    CASE WHEN ds.l2_mb > 0 AND ds.l2_tbps > 0 THEN ds.l2_mb * 1048576.0
    END AS l2_bytes,
    CASE WHEN ds.l2_mb > 0 AND ds.l2_tbps > 0 THEN ds.l2_tbps END AS l2_tbps
  FROM op_gpu_time t JOIN op_sig_model m ON m.sig_id = t.sig_id
  LEFT JOIN op_dtype dt ON dt.type = m.dtype
  LEFT JOIN dsm ds ON ds.run_id = t.run_id AND ds.rank = t.rank
    AND ds.device = t.device
  WHERE t.union_ns > 0 AND t.host_copies = 0
),
p AS (
  SELECT c.*,
    CASE peak WHEN 'fp32' THEN fp32 WHEN 'tf32' THEN tf32 WHEN 'bf16'
      THEN bf16 WHEN 'fp16' THEN fp16 WHEN 'fp8' THEN fp8 WHEN 'int8'
      THEN int8 END AS peak_tflops,
    -- bytes that must cross HBM: none when the footprint fits in L2
    CASE WHEN mem_tbps IS NULL THEN NULL
         WHEN l2_bytes IS NULL THEN bytes
         WHEN footprint <= l2_bytes THEN 0.0
         ELSE max(0.0, bytes - l2_bytes) END AS hbm_bytes
  FROM c
),
q AS (
  SELECT p.*,
    CASE WHEN peak_tflops > 0 AND mem_tbps > 0 THEN
      flops / (peak_tflops * 1e3) END AS compute_ns,
    CASE WHEN peak_tflops > 0 AND mem_tbps > 0 THEN
      max(coalesce(bytes / (l2_tbps * 1e3), 0.0),
          hbm_bytes / (mem_tbps * 1e3)) END AS mem_ns,
    CASE WHEN peak_tflops > 0 AND mem_tbps > 0 THEN
      CASE WHEN coalesce(bytes / (l2_tbps * 1e3), 0.0)
                > hbm_bytes / (mem_tbps * 1e3)
           THEN 'l2' ELSE 'hbm' END END AS tier
  FROM p
)
SELECT matmul, op_id, run_id, rank, device, sig_id, kind, dtype, flops,
  bytes, gpu_ns, sum_ns, n_gpu, gpu, peak, peak_tflops, mem_tbps,
  footprint, l2_bytes, l2_tbps, hbm_bytes, tier,
  max(compute_ns, mem_ns) AS roof_ns,
  CASE WHEN compute_ns >= mem_ns THEN 'compute'
       WHEN mem_ns IS NOT NULL THEN 'memory' END AS bound,
  1000 * whole_us AS slack_ns, whole_us
FROM q;

-- 029's columns with the operator name and input dims, then the tiers.
CREATE VIEW op_roofline_call AS
SELECT r.matmul, r.op_id, r.run_id, r.rank, r.device, s.text AS name,
  r.kind, d.text AS dims, r.dtype, r.flops, r.bytes, r.gpu_ns, r.sum_ns,
  r.n_gpu, r.gpu, r.peak, r.peak_tflops, r.mem_tbps, r.footprint,
  r.l2_bytes, r.l2_tbps, r.hbm_bytes, r.tier, r.roof_ns, r.bound,
  r.slack_ns, r.whole_us
FROM op_roofline_core r
JOIN op_sig g ON g.id = r.sig_id
JOIN string s ON s.id = g.name_id
LEFT JOIN string d ON d.id = g.dims_id;

-- GEMM and attention efficiency of a run: roofline time / GPU time (with
-- the whole-µs slack), as op-roofline and op-kinds compute it.
CREATE VIEW op_metric_roof_calc AS
WITH f AS MATERIALIZED (
  SELECT run_id, fam, sum(roof_ns) AS roof_ns,
    sum(max(0, gpu_ns - roof_ns)) AS over_ns, sum(gpu_ns) AS gpu_ns,
    sum(gpu_ns + slack_ns) AS time_ns
  FROM (
    SELECT run_id, CASE WHEN kind GLOB 'gemm*' THEN 'gemm'
                        ELSE 'attention' END AS fam, gpu_ns, slack_ns,
      roof_ns
    FROM op_roofline_core
    -- +run_id: the rowid range, not the op_gpu_time_run index (a lookup
    -- a call); coalesce: a filter SQLite reads as "not NULL" turns the
    -- LEFT JOIN of the device spec into a join it may run first
    WHERE +run_id IN (SELECT run_id FROM op_target)
      AND op_id BETWEEN
        (SELECT min((SELECT min(id) FROM cpu_op c WHERE c.run_id = o.run_id))
         FROM op_target o)
        AND
        (SELECT max((SELECT max(id) FROM cpu_op c WHERE c.run_id = o.run_id))
         FROM op_target o)
      AND peak_tflops > 0 AND coalesce(mem_tbps, 0) > 0
      AND matmul AND (kind GLOB 'gemm*' OR kind GLOB 'attention*'))
  GROUP BY +run_id, fam
)
SELECT run_id, fam || '_efficiency_pct' AS metric,
  100.0 * roof_ns / time_ns AS value FROM f
UNION ALL
SELECT run_id, fam || '_recoverable_ms', over_ns / 1e6 FROM f
UNION ALL
SELECT run_id, fam || '_time_ms', gpu_ns / 1e6 FROM f;
CREATE VIEW op_metric_calc AS
SELECT run_id, metric, value FROM op_metric_roof_calc
UNION ALL
SELECT run_id, metric, value FROM op_metric_launch_calc
UNION ALL
SELECT run_id, metric, value FROM op_metric_memcpy_calc;


-- ======================================================================
-- was 065-comm-fit-origin.sql — the alpha-beta fit with a latency that
-- cannot be negative (issue 32): the free least-squares intercept of
-- hta-diff-test-v100-rank1's all_reduce was -119.6 µs, sizes far from
-- the latency regime.  alpha >= 0 is a constrained least squares whose
-- optimum, when the free intercept is negative, lies on alpha = 0 (the
-- error is convex in alpha and beta): the slope is then fitted through
-- the origin, b = sum(bytes * dur) / sum(bytes²), its standard error
-- and the residual error with n - 1 degrees of freedom, R² against 0
-- (uncentred).  derive_comm.c (fit_flush) computes it at ingest;
-- comm_fit.alpha_fixed (above) says which fit a row is.


-- ======================================================================
-- was 066-queue-length-run.sql — hta_queue_length (060) read every run's GPU
-- ops for any one run: its launch entries were a GROUP BY over
-- hta_gpu_op, and SQLite (3.40) pushes no run filter into an aggregate
-- subquery, nor into a CTE used twice.  queue-length took 1.3 s on a
-- 6-kernel run in a 35-run database, export-trace 3.7 s on the A100
-- fixture.  Same rows (every fixture's queue-length output is byte for
-- byte the same), now per run: an entry per (launch call, stream) is the
-- first of its window partition (run_id leads every PARTITION BY, so the
-- filter reaches the kernel_run index), and the +1 / -1 events are one
-- pass over the entries joined to a two-row table.  (094 below stores
-- the rows instead: the view's final form is there, the window
-- definition is tests/oracle/hta_series.sql.)


-- ======================================================================
-- was 067-step-share.sql — the step time a share of it is taken of (issue 32:
-- diff-categories / diff-kernels a_step_pct read 147 % on the MI300X
-- fixture, 101.9 % on fixtures/hta32/blocked-queue).  Their numerator is
-- GPU time per step (all of the run's GPU ops, summed, over its steps);
-- the denominator was the mean CPU step, which does not contain it when
-- the GPU runs behind the CPU (MI300X: the GPU works 38 ms past the last
-- CPU step) or before the first step (a warm-up), nor when streams run
-- at once.  step_ns is now the longest of
--   the mean CPU step                                 (step.dur),
--   the GPU-side span of the run's GPU work per step  (gpu_busy: last
--     end - first start, summed over ranks and devices, / steps),
--   the GPU time per step summed over streams         (gpu_busy: kernel,
--     memcpy and memset time = gpu_op_summary's total, / steps),
-- so any part of the GPU time per step is at most 100 % of it.  Per
-- rank-step, as the queries' numerators (step rows of every rank).  It
-- reads stored summaries only, so a --summaries-only history answers the
-- same.
CREATE VIEW step_share AS
SELECT run_id, steps,
  max(cpu_step_ns, span_ns * 1.0 / steps, gpu_ns * 1.0 / steps) AS step_ns,
  cpu_step_ns
FROM (
  SELECT r.id AS run_id,
    (SELECT max(count(*), 1) FROM step s WHERE s.run_id = r.id) AS steps,
    coalesce((SELECT avg(dur) FROM step s WHERE s.run_id = r.id), 0.0)
      AS cpu_step_ns,
    coalesce((SELECT sum(last_end - first_ts) FROM gpu_busy b
              WHERE b.run_id = r.id), 0) AS span_ns,
    coalesce((SELECT sum(kernel_ns + memcpy_ns + memset_ns) FROM gpu_busy b
              WHERE b.run_id = r.id), 0) AS gpu_ns
  FROM run r
);


-- ======================================================================
-- was 090-cpu-comm.sql — communication that runs on the host (issue 37).
--
-- With the gloo (or MPI) backend a collective is not a GPU kernel: the
-- process group runs it on a worker thread of its own, inside a
-- record_function range named after it (gloo:all_reduce, gloo:broadcast,
-- ...).  Kineto writes that range as a user annotation; the legacy
-- exporter (the bare-array trace of a PyTorch without Kineto) as a CPU
-- function, so it lands in cpu_op.  The range lasts from the moment the
-- rank starts the collective until it is done on that rank, waiting for
-- the others included: its start is the rank's arrival, as a
-- communication kernel's start is on the GPU.
--
-- comm_pattern (001-baseline) says which kernels are communication;
-- this table says which host ranges are.  derive_comm.c makes one
-- collective row per cpu_op or user annotation whose name matches a
-- pattern (GLOB, case-sensitive, the whole name), so collectives, rank-skew,
-- collective-skew, the straggler rule and the alpha-beta fit read host
-- collectives as they read NCCL kernels.  nccl:* ranges are not here: on
-- the host they only enqueue the kernel that communicates.
CREATE TABLE comm_cpu_pattern(
  pattern TEXT PRIMARY KEY,        -- GLOB over a cpu_op or annotation name
  family TEXT NOT NULL,            -- gloo, mpi
  op TEXT,                         -- the collective, when the name does
                                   -- not say it (NULL: from the name)
  note TEXT                        -- where the name comes from
);
INSERT INTO comm_cpu_pattern(pattern, family, op, note) VALUES
  ('gloo:*', 'gloo', NULL,
   'ProcessGroupGloo work: gloo:all_reduce, gloo:broadcast, gloo:all_gather,'
   || ' gloo:reduce, gloo:all_to_all, gloo:barrier, gloo:send, gloo:recv'),
  ('mpi:*', 'mpi', NULL,
   'ProcessGroupMPI work: mpi:all_reduce, mpi:broadcast, ...');

-- A host collective has no kernel: collective.kernel_id is nullable
-- (NULL for the rows of comm_cpu_pattern; device and stream NULL too, ts
-- and dur the host range's).  The table (012's, with kernel_id NOT NULL
-- there) is here in its final form.
CREATE TABLE collective(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  file_id INTEGER NOT NULL,
  kernel_id INTEGER,               -- kernel.id; NULL: a host collective
  device INTEGER,
  stream INTEGER,
  ts INTEGER NOT NULL,             -- kernel (or host range) start, ns
  dur INTEGER NOT NULL,            -- kernel (or host range) duration, ns
  op TEXT NOT NULL,                -- all_reduce, all_gather, reduce_scatter,
                                   -- all_to_all, broadcast, reduce, send,
                                   -- recv, send_recv, gather, scatter,
                                   -- barrier, other
  c10d_name TEXT,                  -- 'Collective name' / annotation name /
                                   -- the host range's name
  algo TEXT,                       -- RING, TREE, ... from the kernel name
  proto TEXT,                      -- LL, LL128, SIMPLE
  dtype TEXT,                      -- float32, bfloat16, ...
  elem_bytes INTEGER,              -- bytes per element
  in_nelems INTEGER,
  out_nelems INTEGER,
  bytes INTEGER,                   -- message size as nccl-tests counts it:
                                   -- max(in, out) elements * elem_bytes
  group_size INTEGER,
  pg_name TEXT,
  pg_desc TEXT,
  pg_ranks TEXT,
  bus_factor REAL,                 -- busbw / algbw (nccl-tests)
  seq INTEGER,                     -- 0-based order per (rank, pg_name)
  args_from TEXT NOT NULL,         -- 'kernel', 'cpu_op', 'annotation', 'name'
  op_row INTEGER,                  -- cpu_op.id of record_param_comms, or of
                                   -- the host range
  annotation_row INTEGER           -- annotation.id of nccl:*, or of the
                                   -- host range
);
CREATE INDEX collective_run ON collective(run_id, rank, ts);

-- The table catalogue (001-baseline.sql): comm_cpu_pattern is a rule the
-- analyses read, edited with SQL, for every run.
INSERT INTO table_role(name, role, input_kind, summary, description) VALUES
  ('comm_cpu_pattern', 'parameter', NULL, 0,
   'which host ranges are communication (gloo, MPI)');


-- ======================================================================
-- was 091-rank-traced-span.sql — the traced time of each rank that the
-- straggler analysis divides the others' waiting by: the rank's GPU span
-- (rank_gpu_span, 050) when it has GPU work, else, for a rank that only
-- ran on the host (gloo / MPI host collectives, a PyTorch without CUDA),
-- the span of its CPU operators from the first start to the last end.
-- The straggler rule and rank-skew's lost_pct read it; without it a
-- CPU-only run had no traced time and never a straggler.
CREATE VIEW rank_traced_span AS
SELECT run_id, rank, span_ns, 'gpu' AS clock FROM rank_gpu_span
UNION ALL
SELECT o.run_id, o.rank, max(o.ts + o.dur) - min(o.ts), 'host'
FROM cpu_op o
WHERE NOT EXISTS (SELECT 1 FROM gpu_busy b
                  WHERE b.run_id = o.run_id AND b.rank = o.rank)
GROUP BY o.run_id, o.rank;


-- ======================================================================
-- was 092-step-bound-launch-step.sql — the step time that bounds the work
-- (040) counts a GPU activity in the step that holds its launch call, by
-- the call's step; 040 read the activity's own step column.
--
-- A GPU row launched outside every step (before the profiled steps, the
-- CPU a queue ahead of the GPU) has no launch step, and the trace derive
-- gives it the step holding its own start (derive_trace.c): 040 counted
-- it as that step's work.  fixtures/hta32 blocked-queue launches 1,045
-- kernels of 100 us before ProfilerStep#1; they run for 104 ms, into the
-- CPU ranges of #1 and #4, and made #1 104.22 ms (its own 18 launches
-- run 1.80 ms on the GPU).  Such a row has no say in any step's bound:
-- a step's GPU work is the rows whose launch call lies in the step.
-- The definition is otherwise 040's; derive_step_bound.c computes it at
-- ingest, and tests/oracle/step_bound.sql is the same in SQL (the
-- readable spec; test_step_bound.py runs it over every fixture).


-- ======================================================================
-- was 093-step-comm.sql — exposed communication per step counts the
-- communication inside the steps only (issue 31): on
-- tracelens-mi300-resnet-ckpt the report's "exposed comm ms per step"
-- was 18.5 ms against a 15.95 ms step, because it divided all exposed
-- communication of the trace (before the first step, after the last, in
-- no step at all) by the number of steps.
--
-- step_comm holds, per (run, rank, step), the communication kernel time
-- (the union over the rank's devices) and its exposed part (no compute
-- kernel running on the same device), clipped to the step's window: the
-- step time that bounds its work (step.bound_ts / bound_dur, 040; the
-- ProfilerStep range, or the gap step, where it has none).  So each
-- row's comm_ns and exposed_ns are at most the step time.  Computed in C
-- at ingest, merge and rebuild (src/analysis/derive_step_comm.c, after
-- the step bounds).  run_metric's exposed_comm_ms is now the mean of
-- exposed_ns over the steady steps (the steps step_time_mean_ms is the
-- mean of, so it is at most that); the report's summary row, the
-- exposed-comm finding's per-step figure and the gate read it.
CREATE TABLE step_comm(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  step INTEGER NOT NULL,
  comm_ns INTEGER NOT NULL,        -- communication kernels in the step
  exposed_ns INTEGER NOT NULL,     -- of it, with no compute kernel running
  PRIMARY KEY(run_id, rank, step)
) WITHOUT ROWID;
INSERT INTO table_role(name, role, input_kind, summary, description) VALUES
  ('step_comm', 'derived_run', NULL, 0,
   'communication and exposed communication inside each step''s window');

-- The core metrics: 051's, with exposed_comm_ms from step_comm.
CREATE VIEW run_metric_core_calc AS
WITH
tg AS MATERIALIZED (SELECT run_id FROM core_target),
steady AS MATERIALIZED (
  SELECT run_id, rank, step, dur FROM step_steady
  WHERE steady = 1 AND run_id IN (SELECT run_id FROM tg)
),
ranked AS (
  SELECT run_id, dur,
    row_number() OVER (PARTITION BY run_id ORDER BY dur) AS i,
    count(*) OVER (PARTITION BY run_id) AS n
  FROM steady
),
nstep AS (
  SELECT run_id, count(*) AS n FROM step
  WHERE run_id IN (SELECT run_id FROM tg) GROUP BY run_id
),
perrank AS (
  SELECT a.run_id, max(a.n) AS n, max(coalesce(b.ns, 0)) AS ns
  FROM (SELECT run_id, rank, count(*) AS n FROM step
        WHERE run_id IN (SELECT run_id FROM tg) GROUP BY run_id, rank) a
  LEFT JOIN (SELECT run_id, rank, count(*) AS ns FROM steady
             GROUP BY run_id, rank) b
    ON b.run_id = a.run_id AND b.rank = a.rank
  GROUP BY a.run_id
),
busy AS (
  SELECT t.run_id,
    100.0 * sum(CASE WHEN t.class IN ('kernel', 'memcpy', 'memset', 'comm')
                     THEN t.ns ELSE 0 END) / max(sum(t.ns), 1) AS pct
  FROM step_time t
  JOIN steady s ON s.run_id = t.run_id AND s.rank = t.rank
    AND s.step = t.step
  WHERE t.run_id IN (SELECT run_id FROM tg)
  GROUP BY t.run_id
),
gos AS MATERIALIZED (
  SELECT run_id, kind, name_id, total_ns FROM gpu_op_summary
  WHERE run_id IN (SELECT run_id FROM tg)
),
kname AS (
  SELECT run_id, name_id, sum(total_ns) AS ns
  FROM gos WHERE kind = 'kernel' GROUP BY run_id, name_id
),
kc AS MATERIALIZED (
  SELECT name_id, scheme, category FROM kernel_category
  WHERE name_id IN (SELECT name_id FROM gos)
),
cat AS (
  SELECT g.run_id, c.scheme, c.category, sum(g.total_ns) AS ns
  FROM gos g JOIN kc c ON c.name_id = g.name_id
  GROUP BY g.run_id, c.scheme, c.category
),
gtot AS (
  SELECT run_id, sum(total_ns) AS ns FROM gos GROUP BY run_id
),
co AS (
  SELECT * FROM comm_overlap WHERE run_id IN (SELECT run_id FROM tg)
),
sn AS (
  SELECT * FROM snapshot WHERE run_id IN (SELECT run_id FROM tg)
)
SELECT run_id, 'step_time_median_ms' AS metric, avg(dur) / 1e6 AS value
  FROM ranked WHERE i IN ((n + 1) / 2, (n + 2) / 2) GROUP BY run_id
UNION ALL
SELECT run_id, 'step_time_p90_ms', dur / 1e6
  FROM ranked WHERE i = (9 * n + 9) / 10
UNION ALL
SELECT run_id, 'step_time_mean_ms', avg(dur) / 1e6 FROM steady
  GROUP BY run_id
UNION ALL
SELECT run_id, 'steps', n FROM perrank
UNION ALL
SELECT run_id, 'steady_steps', ns FROM perrank
UNION ALL
SELECT run_id, 'step_gpu_busy_pct', pct FROM busy
UNION ALL
SELECT run_id, 'gpu_util_pct',
    100.0 * sum(busy_ns) / max(sum(last_end - first_ts), 1)
  FROM gpu_busy WHERE run_id IN (SELECT run_id FROM tg) GROUP BY run_id
UNION ALL
SELECT g.run_id, 'gpu_ms', g.ns / 1e6 / s.n
  FROM gtot g JOIN nstep s ON s.run_id = g.run_id
UNION ALL
SELECT k.run_id, 'top_kernel_ms', max(k.ns) / 1e6 / s.n
  FROM kname k JOIN nstep s ON s.run_id = k.run_id GROUP BY k.run_id
UNION ALL
SELECT c.run_id, 'cat_' || c.scheme || ':' || c.category || '_pct',
    100.0 * c.ns / max(t.ns, 1)
  FROM cat c JOIN gtot t ON t.run_id = c.run_id
UNION ALL
SELECT run_id, 'comm_pct', 100.0 * sum(comm_ns) / max(sum(wall_ns), 1)
  FROM co GROUP BY run_id HAVING sum(n_comm) > 0
UNION ALL
SELECT run_id, 'comm_overlap_pct',
    100.0 * sum(overlap_ns) / max(sum(comm_ns), 1)
  FROM co GROUP BY run_id HAVING sum(n_comm) > 0
UNION ALL
SELECT s.run_id, 'exposed_comm_ms', avg(c.exposed_ns) / 1e6
  FROM steady s JOIN step_comm c ON c.run_id = s.run_id
    AND c.rank = s.rank AND c.step = s.step
  WHERE s.run_id IN (SELECT run_id FROM co GROUP BY run_id
                     HAVING sum(n_comm) > 0)
  GROUP BY s.run_id
UNION ALL
SELECT run_id, 'peak_allocated_bytes', max(peak_allocated_bytes)
  FROM sn GROUP BY run_id
UNION ALL
SELECT run_id, 'reserved_bytes', max(reserved_bytes)
  FROM sn GROUP BY run_id
UNION ALL
SELECT run_id, 'max_reserved_bytes',
    max(coalesce(max_reserved_bytes, reserved_bytes))
  FROM sn GROUP BY run_id
UNION ALL
SELECT run_id, 'fragmentation_pct',
    100.0 * sum(fragmented_bytes) / max(sum(reserved_bytes), 1)
  FROM sn GROUP BY run_id
UNION ALL
SELECT run_id, 'reserved_unused_pct',
    100.0 * sum(unused_bytes) / max(sum(reserved_bytes), 1)
  FROM sn GROUP BY run_id
UNION ALL
SELECT s.run_id, 'alloc_churn_bytes',
    1.0 * sum(a.size) / coalesce((SELECT n FROM nstep x
                                  WHERE x.run_id = s.run_id), 1)
  FROM sn s JOIN alloc_event a ON a.snapshot_id = s.id
  WHERE a.action = 'alloc' GROUP BY s.run_id;


-- ======================================================================
-- was 094-hta-stored-series.sql — what three named queries computed with
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
CREATE VIEW hta_queue_length AS
SELECT run_id, rank, device, stream, ts, queue_length, next_ts, queue_full,
  ops
FROM hta_queue_point;


-- ======================================================================
-- was 095-memory-series.sql — what memory-timeline's profiler part computed
-- with window functions over every [memory] event of a run is stored once
-- per run by the derive pass (statements/memory-series.sql, run by
-- src/analysis/derive_run.c), issue 35: memory-timeline took 4.48 s
-- of CPU on the synthetic-memory bench shape x10 (810,000 events), most
-- of it numbering each rank's events in a window at query time.  The
-- query reads these rows by their (run_id, rank, ...) keys; the former
-- definitions are tests/oracle/memory_timeline.sql, which
-- test_trace_queries.StoredMemorySeries compares the query with.

-- The profiler's CUDA [memory] events of a rank that carry a total, in
-- (ts, id) order, numbered from 0 (alloc_event's idx for the trace); the
-- allocated total for the slice maxima, the rest read from memory_event
-- by event_id for the few rows shown (a narrower row: 36 -> about 22
-- bytes an event).
CREATE TABLE memory_point(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  i INTEGER NOT NULL,              -- 0, 1, ... in (ts, memory_event.id) order
  total_allocated INTEGER NOT NULL,
  event_id INTEGER NOT NULL,       -- memory_event.id
  PRIMARY KEY(run_id, rank, i)
) WITHOUT ROWID;

-- The last of those events at or before the end of each step of a rank
-- (a step that ends before every event has no row).
CREATE TABLE memory_step_end(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  step INTEGER NOT NULL,
  event_id INTEGER NOT NULL,       -- memory_event.id
  PRIMARY KEY(run_id, rank, step)
) WITHOUT ROWID;
INSERT INTO table_role(name, role, input_kind, summary, description) VALUES
  ('memory_point', 'derived_run', NULL, 0,
   'profiler CUDA memory totals per rank, numbered in time order'),
  ('memory_step_end', 'derived_run', NULL, 0,
   'the last profiler memory event of each step per rank');
