-- cmd-history-insert-check-result.sql — The table of the checks, through a
-- temporary table (every --format). Used by src/cli/cmd_history.c,
-- check_print_table().
INSERT INTO check_result VALUES(?1, ?2,
  ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,
  ?16, ?17, ?18, ?19, ?20, ?21)
