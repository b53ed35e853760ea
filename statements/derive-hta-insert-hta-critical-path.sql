-- derive-hta-insert-hta-critical-path.sql — Inserts rows into
-- hta_critical_path. Used by src/analysis/derive_hta.c, derive_hta_run().
INSERT INTO hta_critical_path(run_id,rank,step,
  seq,side,lane,ts,dur,class,name_id,segments)
  VALUES(?,?,?,?,?,?,?,?,?,?,?)
