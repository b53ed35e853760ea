-- load-trace-insert-cpu-op.sql — Inserts rows into cpu_op. Used by
-- src/trace/load_trace.c (its table of statements by name).
INSERT INTO cpu_op(run_id,rank,file_id,pid,tid,ts,dur,name_id,
  external_id,sequence,fwd_tid,input_dims_id,input_types_id,
  concrete_inputs_id,
  flops,flops_source,id,parent_id,depth,self_dur,step)
  VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,
  ?19,?20,?21)
