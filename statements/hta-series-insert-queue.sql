-- hta-series-insert-queue.sql — one change point of a stream's launch
-- queue, in the stream's change order. Used by
-- src/analysis/derive_hta_series.c, batch_flush().
INSERT INTO hta_queue_point(run_id, dt, queue_length, queue_full, ops)
VALUES(?, ?, ?, ?, ?)
