-- op-store-select-op-sig.sql — op_sig's id of every signature of the run,
-- inserting the new ones (not modeled).  Returns 0 or -1 with pErr set. Used
-- by src/trace/op_store.c, write_sigs().
SELECT id FROM op_sig WHERE name_id=?1 AND dims_id=?2 AND types_id=?3
  AND conc_id=?4
