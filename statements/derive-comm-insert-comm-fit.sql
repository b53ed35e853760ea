-- derive-comm-insert-comm-fit.sql — Inserts rows into comm_fit. Used by
-- src/comm/derive_comm.c, build_fit().
INSERT INTO comm_fit(run_id,op,group_size,n,n_sizes,min_bytes,
  max_bytes,alpha_ns,slope_ns_per_byte,alpha_se_ns,slope_se,rmse_ns,r2,
  alpha_fixed) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)
