-- delete-run.sql — the run row of run ?1, after its rows in every other
-- table (src/core/runref.c).
DELETE FROM run WHERE id = ?1;
