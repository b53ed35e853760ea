-- db-view-select.sql — Reads sqlite_schema. Used by src/core/db.c,
-- db_view_select().
SELECT sql FROM sqlite_schema WHERE
  type='view' AND name=?1
