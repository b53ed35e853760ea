-- hta-series-insert-queue.sql — one change point of a stream's launch
-- queue, in the stream's change order. Used by
-- src/analysis/derive_hta_series.c through src/core/db_batch.c, which
-- repeats the VALUES tuple to write 16 rows a statement (its parameters
-- are unnumbered, in this order).
INSERT INTO hta_queue_point(run_id, dt, queue_length, queue_full, ops)
VALUES(?, ?, ?, ?, ?)
