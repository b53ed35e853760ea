-- all-runs.sql — every run, oldest first (`profan rebuild` without RUN).
SELECT id FROM run ORDER BY id;
