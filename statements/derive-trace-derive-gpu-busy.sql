-- derive-trace-derive-gpu-busy.sql — GPU busy time, idle gaps and
-- comm/compute overlap per (rank, device), from the spans kept of the rows
-- (trace_keep.h). Used by src/trace/derive_trace.c, derive_gpu_busy().
INSERT INTO comm_overlap(run_id,rank,device,n_comm,comm_ns,comp_ns,
  overlap_ns,wall_ns) VALUES(?1,?2,?3,?4,?5,?6,?7,?8)
