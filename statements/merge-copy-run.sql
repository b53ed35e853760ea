-- merge-copy-run.sql — Copy the rows of run srcRun of source dbS into run
-- m->pRes->runId, table by table in plan order (run_file first);
-- map_strings() has run for dbS.  0 or -1 (pErr). Used by
-- src/ingest/merge.c, copy_run().
-- A template: the caller fills its format directives with db_int() (none may
-- stand in these comments).
SELECT coalesce(max(id), 0) FROM
  "%w" WHERE id<4294967296
