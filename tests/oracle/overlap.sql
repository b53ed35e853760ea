-- overlap.sql — the specification of the table of
-- schema/100-overlap-sum.sql: each device's exclusive GPU time under each
-- combination of compute, communication and memory work, as the view
-- hta_overlap_slice (001: the window view hta_overlap_piece grouped)
-- computed at query time until issue 35, and so the named queries
-- overlap-slices and temporal-breakdown.  profan computes it one way, in
-- C, in the derive pass (src/analysis/hta_metric.c's temporal sweep,
-- stored by derive_hta_overlap.c); tests/e2e/test_oracle.py compares this
-- query's rows with the table's on every fixture (format: see
-- summaries.sql).

-- spec: hta_overlap_sum
-- stored: SELECT run_id, rank, device, compute, comm, memory, ns, pieces FROM hta_overlap_sum
SELECT run_id, rank, device, compute, comm, memory, sum(ns), count(*)
FROM hta_overlap_piece
GROUP BY run_id, rank, device, compute, comm, memory;
