-- hta-series-clear.sql — a run's stored HTA series (idle gaps, launch-queue
-- change points, kernel sequences) emptied before the derive pass writes
-- them again (ingest, merge, rebuild). Used by
-- src/analysis/derive_hta_series.c, hta_series_open().
DELETE FROM hta_idle_gap WHERE run_id=?1;
DELETE FROM hta_queue_point WHERE run_id=?1;
DELETE FROM kernel_sequence WHERE run_id=?1
