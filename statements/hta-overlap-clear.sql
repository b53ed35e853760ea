-- hta-overlap-clear.sql — a run's stored overlap slices emptied before
-- the derive pass writes them again (ingest, merge, rebuild). Used by
-- src/analysis/derive_hta_overlap.c, hta_overlap_open().
DELETE FROM hta_overlap_sum WHERE run_id=?1
