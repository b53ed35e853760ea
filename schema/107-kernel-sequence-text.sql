-- 107-kernel-sequence-text.sql — kernel_sequence (schema 094) held the
-- text of each sequence (its kernel name ids) on every rank's row: 13.6
-- of the 22.8 MB that 094's series cost at 256 ranks (issue 35).  Each
-- distinct sequence of a run is now stored once (kernel_seq_text) and the
-- counts per rank and stream name it by id (kernel_seq_count);
-- kernel_sequence is a view with 094's columns, so the named query
-- kernel-sequences and any SQL over it read the same rows.  Derived
-- tables: dropped here, refilled by ingest or `profan rebuild`.

DROP TABLE kernel_sequence;
DELETE FROM table_role WHERE name = 'kernel_sequence';

-- The distinct sequences of a run: id 1, 2, ... in the order first met.
CREATE TABLE kernel_seq_text(
  run_id INTEGER NOT NULL,
  id INTEGER NOT NULL,
  length INTEGER NOT NULL,         -- kernels in the sequence, 1 to 8
  seq TEXT NOT NULL,               -- kernel name ids in order, ',' between
  PRIMARY KEY(run_id, id)
) WITHOUT ROWID;

-- Occurrences of a sequence on a rank's stream (094's definition: every
-- start position counted, the devices of a stream together).
CREATE TABLE kernel_seq_count(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  stream INTEGER NOT NULL,
  seq_id INTEGER NOT NULL,         -- kernel_seq_text.id of the run
  n INTEGER NOT NULL,              -- occurrences
  ns INTEGER NOT NULL,             -- summed kernel time of all of them
  span_ns INTEGER NOT NULL,        -- summed first start -> last end
  PRIMARY KEY(run_id, rank, stream, seq_id)
) WITHOUT ROWID;

INSERT INTO table_role(name, role, input_kind, summary, description) VALUES
  ('kernel_seq_text', 'derived_run', NULL, 0,
   'the distinct sequences of consecutive kernels of a run'),
  ('kernel_seq_count', 'derived_run', NULL, 0,
   'counts of sequences of consecutive kernels per rank and stream');

CREATE VIEW kernel_sequence AS
SELECT c.run_id, c.rank, c.stream, t.length, t.seq, c.n, c.ns, c.span_ns
FROM kernel_seq_count c
JOIN kernel_seq_text t ON t.run_id = c.run_id AND t.id = c.seq_id;
