-- load-collective-row.sql — Inserts rows into coll_args. Used by
-- src/trace/load_collective.c, load_collective_row().
INSERT INTO coll_args(run_id,rank,file_id,src,row_id,coll_name,dtype,
  in_nelems,out_nelems,group_size,pg_name,pg_desc,pg_ranks,in_split,
  out_split,src_rank,dst_rank,seq) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,
  ?10,?11,?12,?13,?14,?15,?16,?17,?18)
