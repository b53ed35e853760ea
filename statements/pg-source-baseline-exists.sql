-- pg-source-baseline-exists.sql — whether a run reference names a
-- baseline already pulled from the server (then no run is looked up by
-- name or id). Used by src/server/pg_source.c.
-- A template: the caller fills its format directives with db_int() (none may
-- stand in these comments).
SELECT EXISTS (SELECT 1 FROM baseline WHERE
  name=%Q)
