-- cmd-export-run-extent.sql — First start and last end of any trace row of
-- the run (every rank: the origin of --window is common to all ranks). Used
-- by src/cli/cmd_export.c, run_extent().
-- A template: the caller fills its format directives with sqlite3_mprintf()
-- (none may stand in these comments).
-- template arguments (for tests/check_db.c): kernel
SELECT min(ts), max(ts+dur) FROM %s WHERE id
  BETWEEN ?1 AND ?2 AND +run_id=?3
