-- load-nccl-insert-nccl-comm.sql — Inserts rows into nccl_comm. Used by
-- src/comm/load_nccl.c (its table of statements by name).
INSERT INTO nccl_comm(run_id,file_id,host,pid,comm) VALUES(?1,?2,?3,?4,?5)
