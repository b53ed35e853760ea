-- derive-straggler-estimate-clocks.sql — Estimate the clocks of the ranks of
-- a (nRank of them) into aEst and store them in rank_clock when two or more
-- ranks share collectives. Returns 0 or -1 (pErr). Used by
-- src/comm/derive_straggler.c, estimate_clocks().
INSERT INTO rank_clock(run_id, rank, offset_ns,
  n_collectives, spread_ns) VALUES(?1,?2,?3,?4,?5)
