-- load-fr-load-status.sql — pg_status: {pg_id: {last_enqueued_collective,
-- ...}} (ints or strings). Used by src/comm/load_fr.c, load_status().
INSERT INTO fr_pg_status(run_id,file_id,rank,pg_id,last_enqueued,
  last_started,last_completed) VALUES(?1,?2,?3,?4,?5,?6,?7)
