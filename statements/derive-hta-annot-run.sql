-- derive-hta-annot-run.sql — Deletes from hta_annotation_parent. Used by
-- src/analysis/derive_hta_annot.c, derive_hta_annot_run().
DELETE FROM hta_annotation_parent WHERE run_id=?1;
DELETE FROM hta_launch_annotation WHERE run_id=?1
