-- named-query-value-fits.sql — Check z (not NULL, not empty) against type
-- zType for run runId.  On success returns 0 and, for a run reference, sets
-- *pId to the run id (else leaves it).  Returns 1 when z does not fit. Used
-- by src/report/named_query.c, value_fits().
SELECT 1 FROM run_file WHERE run_id=?2
  AND rank=CAST(?1 AS INTEGER)
