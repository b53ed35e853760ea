-- unclassified-tables.sql — tables that hold a run's rows (a run_id
-- column) but have no row in table_role: merge, rm and rebuild would not
-- know what to do with them, and refuse (src/core/table_role.c).
SELECT m.name FROM sqlite_schema m
WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\_%' ESCAPE '\'
  AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'run_id')
  AND m.name NOT IN (SELECT name FROM table_role)
ORDER BY m.name;
