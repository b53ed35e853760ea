-- load-nccl-insert-nccl-coll.sql — Inserts rows into nccl_coll. Used by
-- src/comm/load_nccl.c (its table of statements by name).
INSERT INTO nccl_coll(run_id,file_id,comm_row,rank,host,pid,line,op,
  op_count,count,datatype,dtype,bytes,redop,root,comm,nranks,stream,glued,
  tagged_rank)
  VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,
  ?19,?20)
