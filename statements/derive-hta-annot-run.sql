-- derive-hta-annot-run.sql — Drops run ?1's rows of the annotation passes
-- (hta_annotation_parent, hta_launch_annotation) before they are computed
-- again. Used by src/analysis/derive_hta_annot.c, derive_hta_annot_run().
DELETE FROM hta_annotation_parent WHERE run_id=?1;
DELETE FROM hta_launch_annotation WHERE run_id=?1
