-- string-columns.sql — every column that holds a string.id in a table of
-- a run's rows (the view table_string_column), for `profan rm`.
SELECT tbl, col FROM table_string_column ORDER BY tbl, col;
