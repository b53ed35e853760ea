-- 007-comm.sql — communication: NCCL debug logs, collectives found in
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
  glued INTEGER NOT NULL DEFAULT 0 -- foreign text preceded it on the line
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
CREATE TABLE collective(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  file_id INTEGER NOT NULL,
  kernel_id INTEGER NOT NULL,      -- kernel.id
  device INTEGER,
  stream INTEGER,
  ts INTEGER NOT NULL,             -- kernel start, ns
  dur INTEGER NOT NULL,            -- kernel duration, ns
  op TEXT NOT NULL,                -- all_reduce, all_gather, reduce_scatter,
                                   -- all_to_all, broadcast, reduce, send,
                                   -- recv, send_recv, gather, scatter, other
  c10d_name TEXT,                  -- 'Collective name' / annotation name
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
  op_row INTEGER,                  -- cpu_op.id of record_param_comms
  annotation_row INTEGER           -- annotation.id of nccl:*
);
CREATE INDEX collective_run ON collective(run_id, rank, ts);

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
  r2 REAL
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
