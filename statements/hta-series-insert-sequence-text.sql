-- hta-series-insert-sequence-text.sql — a sequence of kernels met for the
-- first time in the run, with its id. Used by
-- src/analysis/derive_hta_series.c, seq_id().
INSERT INTO kernel_seq_text(run_id, id, length, seq) VALUES(?, ?, ?, ?)
