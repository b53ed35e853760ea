-- 110-memory-event-rowid-range.sql — memory_event's rows of a run as one
-- rowid range (run_rowid_range, schema 105) instead of the index
-- memory_event_run(run_id, rank, ts) (issue 35, the footprint): 16.2 of
-- the 149.4 MB of bench shape synthetic-memory x10.  Its readers (the
-- memory series at ingest, export-trace, the HTML report's memory
-- section) read the range and sort what they need in (rank, ts, id)
-- order, the index's.  The writers (ingest's trace load, merge's copy)
-- record memory_event's range with the other trace tables' (src/core/db.c
-- azRowidTab).

-- the runs already stored, from the index before it goes
INSERT INTO run_rowid_range
SELECT run_id, 'memory_event', min(id), max(id) FROM memory_event
GROUP BY run_id;

DROP INDEX IF EXISTS memory_event_run;
DELETE FROM bulk_index WHERE name = 'memory_event_run';
