-- derive-comm-insert-collective.sql — Prepare the statements of
-- build_collectives into s (the collective kernels' ids are in
-- temp.cm_kernel).  Returns 0, or -1 with pErr set (the caller finalizes
-- whatever was prepared). Used by src/comm/derive_comm.c, coll_prepare().
INSERT INTO collective(run_id,rank,file_id,kernel_id,device,stream,ts,
  dur,op,c10d_name,algo,proto,dtype,elem_bytes,in_nelems,out_nelems,
  bytes,group_size,pg_name,pg_desc,pg_ranks,bus_factor,args_from,op_row,
  annotation_row) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,
  ?15,?16,?17,?18,?19,?20,?21,?22,?23,?24,?25)
