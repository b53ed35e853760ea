-- hta-series-insert-sequence.sql — the counts of one distinct sequence of
-- 1-8 consecutive kernels on a rank's stream (the sequence by its id in
-- kernel_seq_text). Used by src/analysis/derive_hta_series.c, store_seq(),
-- through src/core/db_batch.c, which repeats the VALUES tuple to write 16
-- rows a statement (its parameters are unnumbered, in this order).
INSERT INTO kernel_seq_count(run_id, rank, stream, seq_id, n, ns, span_ns)
VALUES(?, ?, ?, ?, ?, ?, ?)
