-- load-nccl-insert-nccl-algo.sql — Inserts rows into nccl_algo. Used by
-- src/comm/load_nccl.c (its table of statements by name).
INSERT INTO nccl_algo(run_id,file_id,line,host,pid,func,bytes,algo,proto,
  n_channels) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)
