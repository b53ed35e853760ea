-- hta-series-clear.sql — a run's stored HTA series (streams with their
-- idle intervals and launch-queue changes, kernel sequences) emptied
-- before the derive pass writes them again (ingest, merge, rebuild). Used
-- by src/analysis/derive_hta_series.c, hta_series_open().
DELETE FROM hta_stream WHERE run_id = ?1;
DELETE FROM kernel_seq_stream WHERE run_id = ?1;
DELETE FROM kernel_seq_text WHERE run_id = ?1
