-- db-run-rowids.sql — select. Used by src/core/db.c, db_run_rowids():
-- the rowid range of run ?1's rows in trace table ?2 (schema 105).
SELECT lo, hi FROM run_rowid_range WHERE run_id = ?1 AND tbl = ?2
