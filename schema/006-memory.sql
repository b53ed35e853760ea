-- 006-memory.sql — CUDA caching-allocator memory snapshots
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
  gc_threshold REAL                -- garbage_collection_threshold
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
  ('torch/autograd/'), ('torch/utils/checkpoint'),
  ('torch/nn/modules/module.py'), ('torch/_dynamo/'), ('torch/_inductor/'),
  ('torch/cuda'), ('torch/_C'), ('torch/_tensor.py'),
  ('torch/utils/_contextlib.py'), ('torch/_compile.py');

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
CREATE VIEW memory_summary AS
SELECT s.run_id, s.id AS snapshot_id, s.rank, s.device, s.n_segments,
  s.n_blocks, s.reserved_bytes, s.allocated_bytes, s.active_bytes,
  s.inactive_bytes,
  round(100.0 * s.inactive_bytes / max(s.reserved_bytes, 1), 2)
    AS fragmentation_pct,
  round(100.0 * s.active_bytes / max(s.reserved_bytes, 1), 2)
    AS utilization_pct,
  s.peak_allocated_bytes, s.peak_event_idx
FROM snapshot s;
