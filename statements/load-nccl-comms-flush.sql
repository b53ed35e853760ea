-- load-nccl-comms-flush.sql — Write everything learned about each
-- communicator to its row. Used by src/comm/load_nccl.c, comms_flush().
UPDATE nccl_comm SET rank=?1, nranks=?2, comm_id=?3, func=?4,
  cuda_dev=?5, nvml_dev=?6, bus_id=?7, parent=?8, color=?9,
  split_key=?10, n_nodes=?11, local_ranks=?12, version=?13,
  init_format=?14, start_line=?15, complete_line=?16,
  init_total_s=?17, init_timings=?18, bootstrap_s=?19,
  n_coll_channels=?20, n_nvls_channels=?21, n_p2p_channels=?22,
  n_rings=?23, n_trees=?24, end_state=?25 WHERE id=?26
