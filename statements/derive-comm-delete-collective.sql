-- derive-comm-delete-collective.sql — Drops run ?1's collectives before the
-- pass computes them again. Used by src/comm/derive_comm.c,
-- derive_comm_run().
DELETE FROM collective WHERE run_id=?1;
DELETE FROM collective_window WHERE run_id=?1;
DELETE FROM rank_clock WHERE run_id=?1;
DELETE FROM comm_fit WHERE run_id=?1;
