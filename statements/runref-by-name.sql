-- runref-by-name.sql — The oldest run named ?1; ?2 the reference's value as
-- an id, which run_named() binds to every statement it runs. Used by
-- src/core/runref.c, runref_resolve_ex().
SELECT id FROM run WHERE name=?1 AND ?2 NOT NULL
  ORDER BY id LIMIT 1
