-- cmd-query-say-why-empty.sql — An empty result: one line on stderr saying
-- why.  The first table of input_source (schema 014) that q's SQL names and
-- run runId has no row in gives "run 3 has no memory snapshot"; else the
-- result is empty for the data the run has ("no rows for run 3 ..."). Used
-- by src/cli/cmd_query.c, say_why_empty().
-- A template: the caller fills its format directives with db_int() (none may
-- stand in these comments).
SELECT count(*) FROM (SELECT 1 FROM "%w"
  WHERE run_id=%lld LIMIT 1)
