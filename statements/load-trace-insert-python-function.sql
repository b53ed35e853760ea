-- load-trace-insert-python-function.sql — Inserts rows into python_function.
-- Used by src/trace/load_trace.c (its table of statements by name).
INSERT INTO python_function(run_id,rank,file_id,pid,tid,ts,dur,name_id,
  python_id,parent_python_id) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)
