-- hta-series-insert-queue.sql — one change point of a stream's launch
-- queue (the length from that time to next_ts). Used by
-- src/analysis/derive_hta_series.c, store_queue().
INSERT INTO hta_queue_point(run_id, rank, device, stream, seq, ts,
                            queue_length, next_ts, queue_full, ops)
VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
