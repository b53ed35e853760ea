-- 100-overlap-sum.sql — what overlap-slices and temporal-breakdown
-- computed with window functions over every GPU op of a run (the view
-- hta_overlap_piece: each device's active span cut at every start and
-- end) is summed once per run by the derive pass (hta_metric.c's
-- temporal sweep, stored by src/analysis/derive_hta_overlap.c), issue
-- 35: overlap-slices took 1.0-2.05 s of CPU and temporal-breakdown
-- 0.98-1.77 s at 256 ranks and on the bench shapes x10.  The queries and
-- the views hta_overlap_slice and hta_temporal read these rows by their
-- (run_id, rank, device) key; the view hta_overlap_piece stays as the
-- definition, and the former views are tests/oracle/overlap.sql, which
-- test_oracle.py compares these rows with on every fixture.
--
-- Runs ingested before this file have no rows here; `profan rebuild`
-- writes them.

-- One row per device and combination of classes running together (the
-- coarse kernel categories: comm, memory, else compute; memcpy/memset
-- rows are memory; all three 0: idle) with its exclusive time, summed
-- over the pieces between consecutive distinct start/end times.
CREATE TABLE hta_overlap_sum(
  run_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  device INTEGER NOT NULL,         -- GPU ordinal (0 for a row without one)
  compute INTEGER NOT NULL,        -- 1: a compute kernel running
  comm INTEGER NOT NULL,           -- 1: a communication kernel running
  memory INTEGER NOT NULL,         -- 1: memory work running
  ns INTEGER NOT NULL,             -- exclusive time of the combination
  pieces INTEGER NOT NULL,         -- pieces it was summed over
  PRIMARY KEY(run_id, rank, device, compute, comm, memory)
) WITHOUT ROWID;

INSERT INTO table_role(name, role, input_kind, summary, description) VALUES
  ('hta_overlap_sum', 'derived_run', NULL, 0,
   'exclusive GPU time of each combination of compute, comm and memory work per device');

DROP VIEW hta_overlap_slice;
CREATE VIEW hta_overlap_slice AS
SELECT run_id, rank, device, compute, comm, memory, ns, pieces
FROM hta_overlap_sum;

DROP VIEW hta_temporal;
CREATE VIEW hta_temporal AS
SELECT run_id, rank, device,
  sum(ns) AS span_ns,
  sum(CASE WHEN compute + comm + memory = 0 THEN ns ELSE 0 END) AS idle_ns,
  sum(CASE WHEN compute THEN ns ELSE 0 END) AS compute_ns,
  sum(CASE WHEN NOT compute AND comm + memory > 0 THEN ns ELSE 0 END)
    AS non_compute_ns
FROM hta_overlap_sum
GROUP BY run_id, rank, device;
