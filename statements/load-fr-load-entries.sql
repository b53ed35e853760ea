-- load-fr-load-entries.sql — Inserts rows into fr_entry. Used by
-- src/comm/load_fr.c, load_entries().
INSERT INTO fr_entry(run_id,file_id,rank,record_id,pg_id,pg_name,
  pg_desc,collective_seq_id,p2p_seq_id,op_id,profiling_name,op,is_p2p,
  input_sizes,output_sizes,input_numel,output_numel,input_dtypes,
  output_dtypes,state,time_created_ns,time_started_ns,time_completed_ns,
  duration_ms,retired,timeout_ms,thread_name,thread_id)
  VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,
  ?19,?20,?21,?22,?23,?24,?25,?26,?27,?28)
