-- cmd-history-metric-exists.sql — check_resolve() with the history on a
-- server (--history): the baseline from the server, the run from the local
-- database when there is one (as the server would hold it once pushed),
-- their rows pulled; a metric neither has is looked for in every run, as in
-- a local history. Used by src/cli/cmd_history.c, no_metric() and by
-- src/cli/cmd_history.c, check_resolve_history().
-- A template: the caller fills its format directives with db_int() (none may
-- stand in these comments).
SELECT EXISTS (SELECT 1 FROM run_metric WHERE
  metric=%Q)
