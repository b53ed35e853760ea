-- op-store-insert-op-sig.sql — op_sig's id of every signature of the run,
-- inserting the new ones (not modeled).  Returns 0 or -1 with pErr set. Used
-- by src/trace/op_store.c, write_sigs().
INSERT OR IGNORE INTO op_sig(name_id, dims_id, types_id, conc_id)
  VALUES(?1, ?2, ?3, ?4)
