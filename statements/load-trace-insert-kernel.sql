-- load-trace-insert-kernel.sql — Inserts rows into kernel. Used by
-- src/trace/load_trace.c (its table of statements by name).
INSERT INTO kernel(run_id,rank,file_id,device,stream,ts,dur,name_id,
  correlation,external_id,grid_x,grid_y,grid_z,block_x,block_y,block_z,
  registers,shared_mem,blocks_per_sm,warps_per_sm,occupancy_pct,
  runtime_id,op_id,step)
  VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,
  ?19,?20,?21,?22,?23,?24)
