-- load-trace-insert-gpu-sync.sql — Inserts rows into gpu_sync. Used by
-- src/trace/load_trace.c (its table of statements by name).
INSERT INTO gpu_sync(run_id,rank,file_id,device,stream,ts,dur,name_id,
  correlation) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)
