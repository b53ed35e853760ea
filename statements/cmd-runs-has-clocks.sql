-- cmd-runs-has-clocks.sql — Whether run N has rank clock rows. Used by
-- src/cli/cmd_runs.c, show_cmd().
-- A template: the caller fills its format directives with db_int() (none may
-- stand in these comments).
SELECT EXISTS(SELECT 1 FROM
  rank_clock WHERE run_id=%lld)
