-- hta-series-insert-sequence.sql — the counts of the distinct sequences
-- of 1-8 consecutive kernels on a rank's stream, as schema 112's JSON
-- array. Used by src/analysis/derive_hta_series.c, store_seq().
INSERT INTO kernel_seq_stream(run_id, rank, stream, counts)
VALUES(?, ?, ?, ?)
