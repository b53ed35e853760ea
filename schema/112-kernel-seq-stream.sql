-- 112-kernel-seq-stream.sql — the kernel-sequence counts of a rank's
-- stream as one JSON array on one row (kernel_seq_stream) instead of one
-- kernel_seq_count row per distinct sequence (issue 29: those rows,
-- about 5,000 instructions each into their WITHOUT ROWID b-tree, cost 27
-- M instructions of the HTA pass on synthetic-memory).  The view
-- kernel_sequence gives the same rows and columns as before, with the
-- built-in json_each (no custom function: it works in the stock sqlite3
-- shell).  kernel_seq_text is kept.  Derived tables: dropped here,
-- refilled by ingest or `profan rebuild`.

DROP VIEW kernel_sequence;
DROP TABLE kernel_seq_count;
DELETE FROM table_role WHERE name = 'kernel_seq_count';

-- Occurrences of the sequences on a rank's stream (094's definition:
-- every start position counted, the devices of a stream together): one
-- [seq_id, n, ns, span_ns] per distinct sequence, in seq_id order:
-- seq_id its kernel_seq_text.id in the run, n its occurrences, ns the
-- summed kernel time of all of them, span_ns the summed first start ->
-- last end.
CREATE TABLE kernel_seq_stream(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  stream INTEGER NOT NULL,
  counts TEXT NOT NULL,            -- JSON array
  PRIMARY KEY(run_id, rank, stream)
) WITHOUT ROWID;

INSERT INTO table_role(name, role, input_kind, summary, description) VALUES
  ('kernel_seq_stream', 'derived_run', NULL, 0,
   'counts of sequences of consecutive kernels per rank and stream'
   || ' (JSON array; view kernel_sequence)');

-- CROSS JOIN keeps kernel_seq_text the inner loop, found by its key per
-- element (with a plain JOIN the planner read every text of the run
-- first and scanned the array for each: kernel-sequences on V100 x3
-- took 5.9 s instead of 0.01).
CREATE VIEW kernel_sequence AS
SELECT c.run_id, c.rank, c.stream, t.length, t.seq,
  j.value ->> 1 AS n, j.value ->> 2 AS ns, j.value ->> 3 AS span_ns
FROM kernel_seq_stream c
JOIN json_each(c.counts) j
CROSS JOIN kernel_seq_text t
WHERE t.run_id = c.run_id AND t.id = (j.value ->> 0);
