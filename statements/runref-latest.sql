-- runref-latest.sql — The newest run, for the reference 'latest'; ?1 the
-- reference and ?2 its value as an id, which run_named() binds to every
-- statement it runs. Used by src/core/runref.c, runref_resolve_ex().
SELECT max(id) FROM run WHERE ?1 NOT NULL
  AND ?2 NOT NULL
