-- db-view-select.sql — The CREATE VIEW text of view ?1 (db_view_select()
-- takes its SELECT). Used by src/core/db.c, db_view_select().
SELECT sql FROM sqlite_schema WHERE
  type='view' AND name=?1
