-- load-fr-tree.sql — The walker both formats share. Used by
-- src/comm/load_fr.c, load_fr_tree().
INSERT INTO fr_dump(run_id,file_id,rank,version,
  nccl_version,format,n_entries) VALUES(?1,?2,?3,?4,?5,?6,?7)
