-- cmd-report-last-step.sql — --step N of the HTML timeline: the lowest rank
-- with steps must have step N.  Returns 0, or prints why not ("run 3 has no
-- step 99 (rank 0 has steps 10..12)") and returns 1. Used by
-- src/cli/cmd_report.c, check_step().
-- A template: the caller fills its format directives with db_int() (none may
-- stand in these comments).
SELECT max(step) FROM step WHERE
  run_id=%lld AND rank=%lld
