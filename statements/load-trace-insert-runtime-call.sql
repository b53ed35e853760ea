-- load-trace-insert-runtime-call.sql — Inserts rows into runtime_call. Used
-- by src/trace/load_trace.c (its table of statements by name).
INSERT INTO runtime_call(run_id,rank,file_id,pid,tid,ts,dur,name_id,driver,
  correlation,external_id,cbid,id,op_id,top_op_id,in_recompute,step)
  VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17)
