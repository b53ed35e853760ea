-- runref-latest.sql — Reads run. Used by src/core/runref.c,
-- runref_resolve_ex().
SELECT max(id) FROM run WHERE ?1 NOT NULL
  AND ?2 NOT NULL
