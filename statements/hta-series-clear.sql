-- hta-series-clear.sql — a run's stored HTA series (idle gaps, launch-queue
-- change points, streams, kernel sequences) emptied before the derive pass
-- writes them again (ingest, merge, rebuild).  A run's idle gaps and
-- change points are one rowid range each (one derive pass writes them in
-- order), found from its hta_stream rows. Used by
-- src/analysis/derive_hta_series.c, hta_series_open().
DELETE FROM hta_idle_gap WHERE run_id = ?1
  AND id >= (SELECT min(idle_first) FROM hta_stream WHERE run_id = ?1)
  AND id <= (SELECT max(idle_first + idle_n - 1) FROM hta_stream
             WHERE run_id = ?1);
DELETE FROM hta_queue_point WHERE run_id = ?1
  AND id >= (SELECT min(queue_first) FROM hta_stream WHERE run_id = ?1)
  AND id <= (SELECT max(queue_first + queue_n - 1) FROM hta_stream
             WHERE run_id = ?1);
DELETE FROM hta_stream WHERE run_id = ?1;
DELETE FROM kernel_seq_count WHERE run_id = ?1;
DELETE FROM kernel_seq_text WHERE run_id = ?1
