-- 002-trace.sql — PyTorch profiler (Kineto) trace tables.
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
  step INTEGER                     -- derived
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
  PRIMARY KEY(run_id, rank, step)
) WITHOUT ROWID;
