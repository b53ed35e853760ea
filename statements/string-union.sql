-- string-union.sql — the union of every column that holds a string.id in
-- a table of a run's rows (the view table_string_column) as one SELECT
-- text ('SELECT "col" FROM "tbl" UNION ...'), for `profan rm`
-- (src/core/runref.c, delete_unnamed(): delete-unnamed.sql takes it).
SELECT group_concat(printf('SELECT "%w" FROM "%w"', col, tbl), ' UNION ')
FROM (SELECT tbl, col FROM table_string_column ORDER BY tbl, col)
