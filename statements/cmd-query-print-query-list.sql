-- cmd-query-print-query-list.sql — The query list in a machine format (csv,
-- json, markdown): one row per query from an in-memory table, printed by
-- output.c.  Returns an exit code. Used by src/cli/cmd_query.c,
-- print_query_list().
CREATE TABLE q(name, description, source,
  parameters, columns)
