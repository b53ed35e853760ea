-- load-trace-insert-gpu-mem-op.sql — Inserts rows into gpu_mem_op. Used by
-- src/trace/load_trace.c (its table of statements by name).
INSERT INTO gpu_mem_op(run_id,rank,file_id,device,stream,ts,dur,name_id,
  kind,direction,src_kind,dst_kind,bytes,correlation,external_id,
  runtime_id,op_id,step,gbps)
  VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,
  ?19)
