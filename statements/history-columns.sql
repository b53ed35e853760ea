-- history-columns.sql — what a history keeps, for the history server
-- (src/server/pg_rows.c): the run table and every table with a run_id
-- column that table_role marks summary (the tables merge --summaries-only
-- copies: merge-tables.sql with ?1 = 1), one row per column, run first,
-- then run_file (other tables' file ids name its rows), then by name:
--   tbl, col       the table, the column
--   type           its declared type, upper case ('' when none)
--   by_id          1: the table has an INTEGER PRIMARY KEY id (its rows
--                  are read back in id order; the others by their place)
--   is_string      1: the column holds a string.id (table_string_column)
SELECT r.name AS tbl, c.name AS col, upper(c.type) AS type,
  EXISTS (SELECT 1 FROM pragma_table_info(r.name) k
          WHERE k.name = 'id' AND k.pk) AS by_id,
  EXISTS (SELECT 1 FROM table_string_column s
          WHERE s.tbl = r.name AND s.col = c.name) AS is_string
FROM table_role r, pragma_table_info(r.name) c
WHERE r.summary = 1
  AND (r.name = 'run' OR EXISTS (SELECT 1 FROM pragma_table_info(r.name)
                                 WHERE name = 'run_id'))
ORDER BY r.name <> 'run', r.name <> 'run_file', r.name, c.cid;
