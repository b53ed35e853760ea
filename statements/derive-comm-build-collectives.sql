-- derive-comm-build-collectives.sql — order of each collective within its
-- rank and process group: the cross-rank matching key for the skew analysis.
-- Used by src/comm/derive_comm.c, build_collectives().
UPDATE collective SET seq = x.rn FROM (SELECT id, row_number() OVER
  (PARTITION BY rank, coalesce(pg_name, '') ORDER BY ts, id) - 1 AS rn
  FROM collective WHERE run_id=?1) AS x WHERE collective.id = x.id;
