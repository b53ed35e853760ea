-- 024-bulk-indexes.sql — the indexes an ingest builds after its bulk load.
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
 ('trace', 1, 'kernel_run',
  'CREATE INDEX IF NOT EXISTS kernel_run ON kernel(run_id)',
  'every per-run kernel query, derive comm, summaries, run_metric'),
 ('trace', 2, 'cpu_op_run',
  'CREATE INDEX IF NOT EXISTS cpu_op_run ON cpu_op(run_id)',
  'operators, steps, the database sweeps, summaries (min/max rowid)'),
 ('trace', 3, 'runtime_call_run',
  'CREATE INDEX IF NOT EXISTS runtime_call_run ON runtime_call(run_id)',
  'launch-overhead, gpu links of the database pass'),
 ('trace', 4, 'gpu_mem_op_run',
  'CREATE INDEX IF NOT EXISTS gpu_mem_op_run'
  || ' ON gpu_mem_op(run_id, rank, ts, dur, kind)',
  'memcpy, the HTA copy bandwidth (covering, in time order)'),
 ('trace', 5, 'annotation_run',
  'CREATE INDEX IF NOT EXISTS annotation_run ON annotation(run_id, rank, ts)',
  'steps, derive comm (nccl:* annotations by time)'),
 ('trace', 6, 'gpu_sync_run',
  'CREATE INDEX IF NOT EXISTS gpu_sync_run ON gpu_sync(run_id)',
  'sync analyses'),
 ('trace', 7, 'memory_event_run',
  'CREATE INDEX IF NOT EXISTS memory_event_run'
  || ' ON memory_event(run_id, rank, ts)',
  'memory-timeline of traces with profile_memory'),
 ('trace', 8, 'python_function_run',
  'CREATE INDEX IF NOT EXISTS python_function_run ON python_function(run_id)',
  'python stacks of a run'),
 ('trace', 9, 'device_run',
  'CREATE INDEX IF NOT EXISTS device_run ON device(run_id)',
  'roofline and op model (device peak numbers)'),
 -- snapshots: alloc_event needs none (its key is (snapshot_id, idx)), and
 -- indexes on it cost more than the rest of a snapshot ingest
 ('memory', 1, 'snapshot_run',
  'CREATE INDEX IF NOT EXISTS snapshot_run ON snapshot(run_id)',
  'every memory query'),
 ('memory', 2, 'segment_snapshot',
  'CREATE INDEX IF NOT EXISTS segment_snapshot ON segment(snapshot_id)',
  'memory-segments, fragmentation'),
 ('memory', 3, 'segment_run',
  'CREATE INDEX IF NOT EXISTS segment_run ON segment(run_id)',
  'run-level memory views'),
 ('memory', 4, 'block_snapshot',
  'CREATE INDEX IF NOT EXISTS block_snapshot'
  || ' ON block(snapshot_id, segment_id, idx)',
  'blocks of a segment, in order'),
 ('memory', 5, 'block_run',
  'CREATE INDEX IF NOT EXISTS block_run ON block(run_id)',
  'run-level memory views'),
 ('memory', 6, 'memory_annotation_snapshot',
  'CREATE INDEX IF NOT EXISTS memory_annotation_snapshot'
  || ' ON memory_annotation(snapshot_id, time_us)',
  'memory-timeline annotations'),
 ('memory', 7, 'stack_frame_run',
  'CREATE INDEX IF NOT EXISTS stack_frame_run ON stack_frame(run_id)',
  'stack lookups of a run (derive memory, oom, fill-by-size)');
