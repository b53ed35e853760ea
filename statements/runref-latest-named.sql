-- runref-latest-named.sql — Reads run. Used by src/core/runref.c,
-- runref_resolve_ex().
SELECT id FROM run WHERE name=?1 AND ?2 NOT NULL
  ORDER BY id LIMIT 1
