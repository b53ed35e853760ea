-- load-nccl-insert-nccl-warning.sql — Inserts rows into nccl_warning. Used
-- by src/comm/load_nccl.c (its table of statements by name).
INSERT INTO nccl_warning(run_id,file_id,line,host,pid,level,src_file,
  src_line,message) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)
