-- hta-series-insert-idle.sql — one idle interval of a stream (the gap
-- before a GPU row, with whether the host was waiting), in the stream's
-- stored order; its class is decided when read (the hta_idle_interval
-- view, the query idle-breakdown). Used by
-- src/analysis/derive_hta_series.c through src/core/db_batch.c, which
-- repeats the VALUES tuple to write 16 rows a statement (its parameters
-- are unnumbered, in this order).
INSERT INTO hta_idle_gap(run_id, host_wait, gap_ns, mem, row_id)
VALUES(?, ?, ?, ?, ?)
