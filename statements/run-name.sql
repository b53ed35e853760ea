-- run-name.sql — the name of run ?1.
SELECT name FROM run WHERE id = ?1;
