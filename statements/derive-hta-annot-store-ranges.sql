-- derive-hta-annot-store-ranges.sql — The placed ops, sorted, as ranges of
-- one annotation. Used by src/analysis/derive_hta_annot.c, store_ranges().
INSERT INTO hta_launch_annotation(run_id, tab, first_id, last_id,
  annotation_id) VALUES(?1,?2,?3,?4,?5)
