-- load-trace-insert-device.sql — Inserts rows into device. Used by
-- src/trace/load_trace.c (its table of statements by name).
INSERT INTO device(run_id,rank,file_id,device,name,total_mem_bytes,
  compute_major,compute_minor,num_sms) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)
