-- derive-hta-delete-hta-critical-path.sql — Deletes from hta_critical_path.
-- Used by src/analysis/derive_hta.c, derive_hta_run().
DELETE FROM hta_critical_path WHERE run_id=?1;
DELETE FROM hta_critical_path_op WHERE run_id=?1
