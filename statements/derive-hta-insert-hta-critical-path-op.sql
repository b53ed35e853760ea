-- derive-hta-insert-hta-critical-path-op.sql — Inserts rows into
-- hta_critical_path_op. Used by src/analysis/derive_hta.c, derive_hta_run().
INSERT INTO hta_critical_path_op(run_id,rank,step,
  class,name_id,ns,segments) VALUES(?,?,?,?,?,?,?)
