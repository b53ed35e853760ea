-- runref-no-such-run.sql — pErr: no run zRef, with the nearest run name when
-- one is near. Used by src/core/runref.c, no_such_run().
SELECT name FROM run ORDER BY id DESC
  LIMIT 10000
