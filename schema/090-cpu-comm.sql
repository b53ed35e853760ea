-- 090-cpu-comm.sql — communication that runs on the host (issue 37).
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

-- A host collective has no kernel: collective.kernel_id becomes nullable
-- (NULL for the rows of comm_cpu_pattern; device and stream NULL too, ts
-- and dur the host range's).  SQLite cannot drop a NOT NULL: the table is
-- rebuilt with the same columns (SELECT *: a column added to collective
-- by an earlier file makes this fail instead of dropping it).
CREATE TABLE collective_090(
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
INSERT INTO collective_090 SELECT * FROM collective;
DROP TABLE collective;
-- the views that read collective (050's collective_late, 065's fits) name
-- it as it will be again after the rename: the legacy rename leaves them
-- as they are instead of checking them against a schema without it
PRAGMA legacy_alter_table = ON;
ALTER TABLE collective_090 RENAME TO collective;
PRAGMA legacy_alter_table = OFF;
CREATE INDEX collective_run ON collective(run_id, rank, ts);

-- The table catalogue (001-baseline.sql): comm_cpu_pattern is a rule the
-- analyses read, edited with SQL, for every run.
INSERT INTO table_role(name, role, input_kind, summary, description) VALUES
  ('comm_cpu_pattern', 'parameter', NULL, 0,
   'which host ranges are communication (gloo, MPI)');
