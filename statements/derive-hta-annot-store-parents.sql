-- derive-hta-annot-store-parents.sql — Inserts rows into
-- hta_annotation_parent. Used by src/analysis/derive_hta_annot.c,
-- store_parents().
INSERT INTO hta_annotation_parent(run_id, annotation_id, parent_id)
  VALUES(?1, ?2, ?3)
