-- load-trace-insert-memory-event.sql — Inserts rows into memory_event. Used
-- by src/trace/load_trace.c (its table of statements by name).
INSERT INTO memory_event(run_id,rank,file_id,ts,name,device_type,device,
  addr,bytes,total_allocated,total_reserved)
  VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)
