-- hta-series-insert-idle.sql — one idle interval of a stream (the gap
-- before a GPU row, with whether the host was waiting); its class is
-- decided when read (the hta_idle_interval view). Used by
-- src/analysis/derive_hta_series.c, store_idle().
INSERT INTO hta_idle_gap(run_id, rank, device, stream, host_wait, gap_ns, ts,
                         kind, row_id, launch_ts)
VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
