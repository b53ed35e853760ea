-- db-rowid-mark.sql — select. Used by src/core/db.c, db_rowid_mark(): a
-- trace table's largest id below 2^32 and largest id (at least 2^32 - 1),
-- before a run's rows are written.
-- A template: the caller fills its format directives with sqlite3_mprintf()
-- (none may stand in these comments).
-- template arguments (for tests/check_db.c): kernel | kernel
SELECT coalesce((SELECT max(id) FROM "%w" WHERE id < 4294967296), 0),
  max(coalesce((SELECT max(id) FROM "%w"), 0), 4294967295)
