-- load-trace-insert-annotation.sql — Inserts rows into annotation. Used by
-- src/trace/load_trace.c (its table of statements by name).
INSERT INTO annotation(run_id,rank,file_id,kind,pid,tid,ts,dur,name_id,
  external_id) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)
