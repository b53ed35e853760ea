-- load-nccl-insert-nccl-link.sql — Inserts rows into nccl_link. Used by
-- src/comm/load_nccl.c (its table of statements by name).
INSERT INTO nccl_link(run_id,file_id,comm_row,rank,peer,channel,
  conn_index,direction,transport,via,line,host,pid)
  VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13)
