-- hta-series-insert-sequence.sql — one distinct sequence of 1-8 consecutive
-- kernels of a stream, with its count and times. Used by
-- src/analysis/derive_hta_series.c, store_seq().
INSERT INTO kernel_sequence(run_id, rank, stream, length, seq, n, ns, span_ns)
VALUES(?, ?, ?, ?, ?, ?, ?, ?)
