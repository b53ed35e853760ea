-- history-window-has-stacks.sql — 1 when run id has call stacks recorded
-- (its snapshots' frames); a run archived with --summaries-only keeps none.
-- Used by src/history/history_window.c, has_stacks().
-- A template: the caller fills its format directives with db_int() (none may
-- stand in these comments).
SELECT EXISTS (SELECT 1 FROM stack WHERE run_id =
  %lld)
